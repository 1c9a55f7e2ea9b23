//===- tfc-translate.cpp - tfc IR to kernel sources and artifacts ---------===//
//
// Translations out of MLIR. `--emit-cuda` prints the CUDA C++ source of
// every kernel in the input (each tfc.fusion, and each tfcrt.kernel symbol
// of a lowered module), preceded by a header comment with its kind and
// launch configuration:
//
//   tfc-translate --emit-cuda model.mlir [-o out.cu]
//                 [--split-input-file] [--verify-diagnostics]
//
// `--emit-host` prints the host programs the same way, and `--emit-artifact
// -o DIR` writes the runtime artifact of a module lowered with
// --tfc-lower-to-exec (docs/execution.md section 4):
//
//   tfc-opt --tfc-lower-to-exec model.mlir | tfc-translate --emit-artifact -o out/
//
// An artifact already at DIR is replaced; any other existing path (a
// directory of the user's, a file, `.`) is refused, never deleted.
//
// Bad input (a parse error, a kernel codegen cannot emit) prints an MLIR
// diagnostic with its location and exits with status 1.
//
//===----------------------------------------------------------------------===//

#include "compiler/artifact/ArtifactWriter.h"
#include "compiler/jit/InputFile.h"
#include "compiler/codegen/cuda/CudaCodegen.h"
#include "compiler/codegen/host/HostCodegen.h"
#include "dialects/Registration.h"
#include "dialects/tfc/TfcOps.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Support/ToolUtilities.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"

using namespace mlir;

namespace {
enum class Action { None, EmitCuda, EmitHost, EmitArtifact };

llvm::cl::opt<std::string> inputFilename(llvm::cl::Positional,
                                         llvm::cl::desc("<input .mlir>"),
                                         llvm::cl::init("-"));
llvm::cl::opt<std::string> outputFilename("o", llvm::cl::desc("Output file"),
                                          llvm::cl::value_desc("filename"),
                                          llvm::cl::init("-"));
llvm::cl::opt<Action> action(
    llvm::cl::desc("Translation:"), llvm::cl::init(Action::None),
    llvm::cl::values(clEnumValN(Action::EmitCuda, "emit-cuda",
                                "print the CUDA C++ source of every kernel "
                                "(tfc.fusion and tfcrt.kernel ops)"),
                     clEnumValN(Action::EmitHost, "emit-host",
                                "print the host program of every kernel "
                                "(docs/execution.md section 5)"),
                     clEnumValN(Action::EmitArtifact, "emit-artifact",
                                "write the artifact of a lowered module to "
                                "the directory given by -o (an artifact "
                                "there is replaced, anything else refused)")));

LogicalResult emitCuda(ModuleOp module, llvm::raw_ostream &os) {
  bool ok = true;
  for (const mlir::tfc::KernelSite &site : mlir::tfc::findKernels(module)) {
    FailureOr<mlir::tfc::CudaKernel> kernel =
        mlir::tfc::emitCudaKernel(*site.body, site.kind, site.name);
    if (failed(kernel)) {
      ok = false; // keep going: report every kernel that cannot be emitted
      continue;
    }
    os << "// ===== kernel " << kernel->name << ": kind "
       << mlir::tfc::stringifyKernelKind(kernel->kind) << ", grid ["
       << kernel->grid[0] << ", " << kernel->grid[1] << ", " << kernel->grid[2]
       << "], block [" << kernel->block[0] << ", " << kernel->block[1] << ", "
       << kernel->block[2] << "], shared " << kernel->sharedBytes << " bytes\n"
       << kernel->source << "\n";
  }
  return success(ok);
}

/// Host programs of every kernel, each after a `# ===== kernel` comment line
/// (comments are allowed in host programs).
LogicalResult emitHost(ModuleOp module, llvm::raw_ostream &os) {
  bool ok = true;
  for (const mlir::tfc::KernelSite &site : mlir::tfc::findKernels(module)) {
    FailureOr<std::string> program =
        mlir::tfc::emitHostProgram(*site.body, site.kind);
    if (failed(program)) {
      ok = false; // keep going: report every kernel that cannot be emitted
      continue;
    }
    os << "# ===== kernel " << site.name << "\n" << *program;
  }
  return success(ok);
}

/// Parses one buffer and runs the translation on it; with
/// --verify-diagnostics, checks the expected-* annotations instead of
/// printing diagnostics.
LogicalResult processBuffer(std::unique_ptr<llvm::MemoryBuffer> buffer,
                            llvm::raw_ostream &os, bool verify) {
  DialectRegistry registry;
  ::tfc::registerAllDialects(registry);
  MLIRContext context(registry);
  context.loadAllAvailableDialects();
  // As mlir-opt: diagnostics carry the op unless they are being verified.
  context.printOpOnDiagnostic(!verify);

  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(std::move(buffer), llvm::SMLoc());
  auto translate = [&]() -> LogicalResult {
    OwningOpRef<ModuleOp> module =
        parseSourceFile<ModuleOp>(sourceMgr, &context);
    if (!module)
      return failure();
    switch (action) {
    case Action::EmitHost:
      return emitHost(*module, os);
    case Action::EmitArtifact:
      return ::tfc::writeArtifact(*module, outputFilename);
    default:
      return emitCuda(*module, os);
    }
  };
  if (!verify) {
    SourceMgrDiagnosticHandler diagnostics(sourceMgr, &context);
    return translate();
  }
  SourceMgrDiagnosticVerifierHandler diagnostics(sourceMgr, &context);
  (void)translate();
  return diagnostics.verify();
}

llvm::cl::opt<bool> splitInputFile(
    "split-input-file",
    llvm::cl::desc("Translate each `// -----` chunk of the input on its own"));
llvm::cl::opt<bool> verifyDiagnostics(
    "verify-diagnostics",
    llvm::cl::desc("Check expected-* diagnostic annotations in the input"));
} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  registerAsmPrinterCLOptions();
  registerMLIRContextCLOptions();
  llvm::cl::ParseCommandLineOptions(
      argc, argv, "tfc-translate: tfc IR to kernel sources\n");
  if (action == Action::None) {
    llvm::errs() << "tfc-translate: no translation given (use --emit-cuda, "
                    "--emit-host or --emit-artifact)\n";
    return 1;
  }
  if (action == Action::EmitArtifact &&
      (outputFilename == "-" || splitInputFile)) {
    llvm::errs() << "tfc-translate: --emit-artifact needs an output "
                    "directory (-o DIR) and one input module\n";
    return 1;
  }

  // A destination that would be refused after the work is refused now.
  if (action == Action::EmitArtifact) {
    std::string problem = ::tfc::checkArtifactDestination(outputFilename);
    if (!problem.empty()) {
      llvm::errs() << "tfc-translate: " << problem << "\n";
      return 1;
    }
  }

  if (std::string problem = ::tfc::checkInputFile(inputFilename);
      !problem.empty()) {
    llvm::errs() << "tfc-translate: " << problem << "\n";
    return 1;
  }
  std::string error;
  std::unique_ptr<llvm::MemoryBuffer> input =
      openInputFile(inputFilename, &error);
  if (!input) {
    llvm::errs() << "tfc-translate: " << error << "\n";
    return 1;
  }
  // An artifact is a directory written by writeArtifact itself.
  std::unique_ptr<llvm::ToolOutputFile> output = openOutputFile(
      action == Action::EmitArtifact ? "-" : outputFilename.getValue(), &error);
  if (!output) {
    llvm::errs() << "tfc-translate: " << error << "\n";
    return 1;
  }
  auto process = [&](std::unique_ptr<llvm::MemoryBuffer> chunk,
                     llvm::raw_ostream &os) {
    return processBuffer(std::move(chunk), os, verifyDiagnostics);
  };
  LogicalResult result =
      splitInputFile
          ? splitAndProcessBuffer(std::move(input), process, output->os(),
                                  kDefaultSplitMarker, "// -----")
          : process(std::move(input), output->os());
  if (failed(result))
    return 1;
  output->keep();
  return 0;
}
