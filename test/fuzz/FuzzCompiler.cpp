//===- FuzzCompiler.cpp - libFuzzer target: the compiler path -------------===//
//
// Input: tfc IR text, as a user hands it to tfc-opt, tfc-run or tfc-train,
// optionally starting with one line
//   // tfc-fuzz: <--tfc-train-pipeline options>
// that picks the training step's options (mutations then reach the option
// parser too); without it the options come from a small table, chosen by
// a hash of the input. What runs, as MLIR's own parser fuzzers drive
// mlir-opt:
//
//   1. parse and verify the module;
//   2. --tfc-lower-to-exec{autodiff} on a copy, for the function @loss if
//      the module has one, else its first function (the forward and
//      backward of one function, decomposed, fused, lowered to kernels);
//   3. --tfc-train-pipeline with the options on another copy (the whole
//      training step: autodiff, optimizer, loss scaling, precision,
//      padding, recompute, fusion, lowering).
//
// Every failure must come with an error diagnostic (a pass that fails
// silently leaves tfc's tools with no message for the user), and whatever a
// pipeline accepts must verify after every pass (the pass manager checks)
// and print as text that parses back: tfc-opt's output is the next tool's
// input. Anything else, and any crash, hang (-timeout) or sanitizer report,
// is a finding. TFC_FUZZ_VERBOSE=1 prints the options, the diagnostics and
// how far the input got.
//
// Built with the rest of test/fuzz in a separate clang build: tfc's
// dialects and passes are compiled there with the sanitizers and
// libFuzzer's coverage instrumentation; the system's libMLIR is not
// instrumented (test/fuzz/compiler/CMakeLists.txt).
//
//===----------------------------------------------------------------------===//

#include "dialects/Registration.h"
#include "passes/Pipelines.h"
#include "test/fuzz/FuzzUtil.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/raw_ostream.h"

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace {

/// Training-step options for inputs without a `// tfc-fuzz:` line: the
/// optimizers, precisions, padding, recompute and fusion modes users pick.
const char *const kTrainOptions[] = {
    "optimizer=adamw target=host",
    "optimizer=sgd momentum=0.9 max-grad-norm=1.0",
    "optimizer=adamw precision=bf16 target=sm_90",
    "optimizer=adamw precision=fp16 target=sm_80",
    "optimizer=adamw pad=8 recompute=cheap",
    "optimizer=adam accumulate-steps=2 fusion=none",
    "optimizer=adamw8bit target=host",
    "optimizer=adafactor recompute=blocks",
    "optimizer=sgd optimizer-in-backward=true fusion=none",
    "optimizer=adamw precision=bf16 optimizer-in-backward=true target=host",
};
const char kOptionsPrefix[] = "// tfc-fuzz:";

bool verbose() {
  static const bool v = std::getenv("TFC_FUZZ_VERBOSE") != nullptr;
  return v;
}

void say(const llvm::Twine &what) {
  if (verbose())
    llvm::errs() << what << "\n";
}

[[noreturn]] void fail(const llvm::Twine &what) {
  llvm::errs() << "fuzz-compiler: " << what << "\n";
  std::abort();
}

/// Counts the error diagnostics of a context (and prints them when
/// verbose) so that a failure without a message is caught.
class ErrorCounter {
public:
  explicit ErrorCounter(mlir::MLIRContext &context)
      : handler_(context.getDiagEngine().registerHandler(
            [this](mlir::Diagnostic &diag) {
              if (diag.getSeverity() == mlir::DiagnosticSeverity::Error)
                ++errors_;
              if (verbose())
                llvm::errs() << diag.getLocation() << ": " << diag << "\n";
              return mlir::success();
            })),
        context_(context) {}
  ~ErrorCounter() { context_.getDiagEngine().eraseHandler(handler_); }
  unsigned errors() const { return errors_; }

private:
  mlir::DiagnosticEngine::HandlerID handler_;
  mlir::MLIRContext &context_;
  unsigned errors_ = 0;
};

/// The function --tfc-lower-to-exec differentiates: @loss when present,
/// else the module's first function; empty when it has none.
std::string lowerFunction(mlir::ModuleOp module) {
  std::string first;
  for (auto func : module.getOps<mlir::func::FuncOp>()) {
    if (func.getSymName() == "loss")
      return "loss";
    if (first.empty())
      first = func.getSymName().str();
  }
  return first;
}

/// Runs `pm` on a copy of `module`: a failure needs an error diagnostic; a
/// success must print as text that parses back.
void runPipeline(mlir::MLIRContext &context, mlir::ModuleOp module,
                 mlir::PassManager &pm, const char *name) {
  mlir::OwningOpRef<mlir::ModuleOp> copy(module.clone());
  ErrorCounter errors(context);
  if (mlir::failed(pm.run(*copy))) {
    if (errors.errors() == 0)
      fail(llvm::Twine(name) + " failed without an error diagnostic");
    say(llvm::Twine(name) + ": rejected");
    return;
  }
  if (errors.errors() != 0)
    fail(llvm::Twine(name) + " succeeded but reported an error");
  std::string text;
  llvm::raw_string_ostream os(text);
  copy->print(os);
  os.flush();
  mlir::ParserConfig config(&context);
  if (!mlir::parseSourceString<mlir::ModuleOp>(text, config))
    fail(llvm::Twine(name) + "'s output does not parse back:\n" + text);
  say(llvm::Twine(name) + ": ok");
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  llvm::StringRef input(reinterpret_cast<const char *>(data), size);

  std::string trainOptions =
      kTrainOptions[tfc::rt::fuzz::hashBytes(data, size) %
                    (sizeof(kTrainOptions) / sizeof(kTrainOptions[0]))];
  if (input.starts_with(kOptionsPrefix))
    trainOptions = input.drop_front(sizeof(kOptionsPrefix) - 1)
                       .take_until([](char c) { return c == '\n'; })
                       .trim()
                       .str();
  say("options: " + trainOptions);

  mlir::DialectRegistry registry;
  tfc::registerAllDialects(registry);
  mlir::MLIRContext context(registry, mlir::MLIRContext::Threading::DISABLED);
  context.printOpOnDiagnostic(false);

  // 1. Parse and verify.
  mlir::OwningOpRef<mlir::ModuleOp> module;
  {
    ErrorCounter errors(context);
    mlir::ParserConfig config(&context);
    // MLIR's lexer reads up to a terminating NUL, as tfc's tools' file
    // buffers have; libFuzzer's input has none.
    std::string text = input.str();
    module = mlir::parseSourceString<mlir::ModuleOp>(text, config);
    if (!module) {
      if (errors.errors() == 0)
        fail("the parser rejected the input without an error diagnostic");
      say("parse: rejected");
      return 0;
    }
  }
  say("parse: ok");

  // 2. The forward and backward of one function, lowered to kernels.
  std::string function = lowerFunction(*module);
  if (!function.empty()) {
    tfc::LowerToExecOptions lower;
    lower.function = function;
    lower.autodiff = true;
    mlir::PassManager pm(&context);
    tfc::buildLowerToExecPipeline(pm, lower);
    runPipeline(context, *module, pm, "--tfc-lower-to-exec");
  }

  // 3. The training step.
  mlir::PassManager pm(&context);
  std::string optionError;
  if (mlir::failed(tfc::buildTrainPipeline(
          pm, trainOptions, [&](const llvm::Twine &message) {
            optionError = message.str();
            return mlir::failure();
          }))) {
    if (optionError.empty())
      fail("bad --tfc-train-pipeline options without a message: " +
           trainOptions);
    say("options rejected: " + optionError);
    return 0;
  }
  runPipeline(context, *module, pm, "--tfc-train-pipeline");
  return 0;
}
