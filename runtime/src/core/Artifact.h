//===- Artifact.h - the loaded, validated artifact --------------*- C++ -*-===//
//
// In-memory form of an artifact directory (docs/execution.md, section 4).
// loadArtifact validates every field of the untrusted manifest and the kernel
// files; everything after it can rely on the invariants documented here.
//
//===----------------------------------------------------------------------===//

#ifndef TFC_RUNTIME_CORE_ARTIFACT_H
#define TFC_RUNTIME_CORE_ARTIFACT_H

#include "common/GemmEpilogues.h"
#include "runtime/src/core/DType.h"
#include "runtime/src/core/Status.h"

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tfc::rt {

enum class BufferKind { External, Arena, Alias };
enum class BufferRole { None, Param, Input, Output, State };

/// One buffer of the plan. Invariants after loading: `bytes ==
/// dtypeSize(dtype) * numElements(shape)`; arena buffers lie inside the arena
/// and are aligned to it; aliases refer to an earlier non-alias buffer of the
/// same byte size (`aliasOf` is resolved to that root).
struct BufferDesc {
  int64_t id = 0;
  BufferKind kind = BufferKind::Arena;
  BufferRole role = BufferRole::None; ///< Only for External.
  std::string name;                   ///< Only for External.
  DType dtype = DType::F32;
  std::vector<int64_t> shape;
  int64_t bytes = 0;
  int64_t offset = 0;   ///< Arena byte offset (Arena).
  int64_t aliasOf = -1; ///< Root buffer id (Alias).
};

/// The dtype and shape of one kernel parameter.
struct TensorSig {
  DType dtype = DType::F32;
  std::vector<int64_t> shape;
};

/// One kernel: its CUDA source and host program, already read from disk and
/// checked against the manifest's sha256. `inputs`/`outputs` are the kernel's
/// signature, read from the host program's `in` and `out` lines; the loader
/// checks every launch against them (same count, dtypes and shapes).
struct KernelDesc {
  std::string name;
  std::string kind; ///< pointwise, row_reduction, column_reduction, gather, ...
  std::string cudaSource;
  std::string hostProgram;
  std::array<uint32_t, 3> grid{1, 1, 1};
  std::array<uint32_t, 3> block{1, 1, 1};
  uint32_t sharedBytes = 0;
  std::vector<TensorSig> inputs, outputs;
};

/// GEMM epilogues (GemmEpilogue, its table and predicates) are in
/// common/GemmEpilogues.h, shared with the compiler; the runtime names them
/// as its own.
using ::tfc::EpilogueOperand;
using ::tfc::epilogueActivation;
using ::tfc::epilogueAux;
using ::tfc::epilogueBias;
using ::tfc::epilogueHasAux;
using ::tfc::epilogueHasBias;
using ::tfc::GemmActivation;
using ::tfc::GemmEpilogue;
using ::tfc::GemmEpilogueInfo;
using ::tfc::gemmEpilogueInfo;
using ::tfc::gemmEpilogueName;
using ::tfc::kGemmEpilogues;
/// The epilogue spelled `name` in a manifest, or nullopt.
std::optional<GemmEpilogue> parseGemmEpilogue(const std::string &name);
/// Every manifest spelling, for messages: "none, bias, ... or dgelu_bgrad".
std::string gemmEpilogueNameList();

/// A row-major strided-batched GEMM: for each b < batch,
/// C[b] = alpha * op(A[b]) * op(B[b]) + beta * C[b], op(A) is m x k, op(B)
/// is k x n, C is m x n; leading dimensions and batch strides in elements
/// (stride 0 broadcasts that operand over the batch). An epilogue other
/// than None needs batch 1 and beta 0 (it never accumulates into C); one
/// with a bias reads `bias` (n elements of cType; only bias[0..n) is read)
/// or writes it (the bias gradient: exactly n elements), one with aux writes
/// or reads `aux`, an m x n cType matrix with leading dimension ldc
/// (epilogueBias, epilogueAux).
struct GemmDesc {
  int64_t a = 0, b = 0, c = 0; ///< Buffer ids.
  int64_t bias = -1, aux = -1; ///< Buffer ids; -1 when the epilogue has none.
  bool transposeA = false, transposeB = false;
  int64_t m = 0, n = 0, k = 0, batch = 1;
  int64_t lda = 0, ldb = 0, ldc = 0;
  int64_t strideA = 0, strideB = 0, strideC = 0;
  DType aType = DType::F32, bType = DType::F32, cType = DType::F32;
  std::string computeType = "f32";
  GemmEpilogue epilogue = GemmEpilogue::None;
  double alpha = 1.0, beta = 0.0;
};

enum class StepKind { Launch, Gemm, Copy };

/// One step of an entry. Launch: `kernel` indexes Artifact::kernels, `args`
/// then `results` are buffer ids in kernel-parameter order. Copy: `src` and
/// `dst` buffer ids of equal byte size.
struct Step {
  StepKind kind = StepKind::Launch;
  int64_t kernel = -1;
  std::vector<int64_t> args, results;
  GemmDesc gemm;
  int64_t src = -1, dst = -1;
};

struct EntryDesc {
  std::string name;
  std::vector<Step> steps;
  /// A refresh entry computes state derived from the parameters (the
  /// 16-bit weight copies): the executor runs it before any other entry
  /// whenever a parameter was set since it last ran.
  bool refresh = false;
};

struct Artifact {
  std::string directory;
  int64_t arenaSize = 0;
  int64_t arenaAlignment = 256;
  std::vector<BufferDesc> buffers; ///< Indexed by id.
  std::vector<KernelDesc> kernels;
  std::vector<EntryDesc> entries;

  /// Returns the entry named `name`, or null.
  const EntryDesc *findEntry(const std::string &name) const;
  /// Returns the external buffer named `name`, or null.
  const BufferDesc *findExternal(const std::string &name) const;
};

/// Format version this runtime reads.
constexpr int64_t kArtifactVersion = 1;

/// The file next to manifest.json holding its SHA-256 (sha256sum's format:
/// "<64 hex digits>  manifest.json\n"). The manifest records the SHA-256 of
/// every kernel file, so this one digest covers the whole artifact.
inline const char *kManifestDigestFile = "manifest.sha256";

/// The manifest.sha256 text for `manifestText`.
std::string manifestDigestText(const std::string &manifestText);

/// Reads and validates the artifact in `directory` (docs/execution.md,
/// section 4): first manifest.json against manifest.sha256 (a missing or
/// mismatching digest is an error naming the file), then every field.
/// Every error names the offending field, e.g.
/// "manifest.json: buffers[3].offset: arena view [4096, 8192) outside the
/// arena (size 6144)".
Status loadArtifact(const std::string &directory, Artifact &out);

/// Validates an already-parsed manifest. Kernel files are read relative to
/// `directory`. loadArtifact = read manifest.json + this.
Status loadArtifactFromManifest(const std::string &directory,
                                const std::string &manifestText, Artifact &out);

/// Reads the signature (`in` lines, `out` lines) and `kind` of a host program
/// without interpreting its ops; errors name the line.
Status readHostProgramSignature(const std::string &program, std::string &kind,
                                std::vector<TensorSig> &inputs,
                                std::vector<TensorSig> &outputs);

} // namespace tfc::rt

#endif // TFC_RUNTIME_CORE_ARTIFACT_H
