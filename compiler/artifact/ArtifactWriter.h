//===- ArtifactWriter.h - tfcrt module -> artifact directory ----*- C++ -*-===//
//
// Writes the artifact the runtime loads (docs/execution.md, section 4): a
// manifest.json with the buffer plan, kernels and entry steps, plus each
// kernel's CUDA source and host program, generated here by codegen.
//
//===----------------------------------------------------------------------===//

#ifndef TFC_COMPILER_ARTIFACT_ARTIFACTWRITER_H
#define TFC_COMPILER_ARTIFACT_ARTIFACTWRITER_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/LogicalResult.h"
#include "llvm/ADT/StringRef.h"

#include <string>

namespace tfc {

/// The artifact format version this writer produces (manifest "version").
constexpr int kArtifactVersion = 1;

/// What writeArtifact does when `directory` already exists.
enum class ArtifactPublish {
  /// Replace it if it is an artifact (tfc-translate --emit-artifact, tfc-run
  /// --emit-artifact): the new one is renamed in, the old one moved aside
  /// and then deleted. Any other existing path is refused, never deleted.
  Replace,
  /// Keep it and discard the new one: a content-addressed cache entry that
  /// another process published first holds the same artifact, and it may
  /// be loading it right now.
  KeepExisting,
};

/// Empty when writeArtifact may publish to `directory`, else the reason in
/// one line: it may be a new path, or an artifact (a directory holding a
/// manifest.json), which is replaced; a symbolic link stands for its
/// target. Anything else that exists (a user's directory or file, `.`,
/// `..`, `/`) is refused. Tools call it before compiling.
std::string checkArtifactDestination(llvm::StringRef directory);

/// Empty when the artifact in `directory` is intact: manifest.json matches
/// manifest.sha256 and every kernel file its sha256 in the manifest (what
/// the runtime checks first when loading). Else what is wrong, in one
/// line. The JIT checks a cache entry with it before reusing it.
std::string checkArtifactDigests(llvm::StringRef directory);

/// Generates code for every tfcrt.kernel of `module` (a module lowered by
/// --tfc-lower-to-exec) and writes the artifact to `directory`. The artifact
/// is written under a temporary name and renamed into place, so a reader
/// never sees a half-written one. Errors are reported as MLIR diagnostics on
/// the offending op.
mlir::LogicalResult
writeArtifact(mlir::ModuleOp module, llvm::StringRef directory,
              ArtifactPublish publish = ArtifactPublish::Replace);

} // namespace tfc

#endif // TFC_COMPILER_ARTIFACT_ARTIFACTWRITER_H
