//===- Pipelines.cpp - named tfc pass pipelines ---------------------------===//

#include "passes/Pipelines.h"

#include "passes/autodiff/Passes.h"
#include "passes/lowering/Passes.h"
#include "passes/training/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/ADT/StringExtras.h"

void tfc::buildLowerToExecPipeline(mlir::OpPassManager &pm,
                                   const LowerToExecOptions &options) {
  std::string function = options.function;
  if (options.autodiff) {
    TfcAutodiffPassOptions autodiff;
    autodiff.function = function;
    pm.addPass(createTfcAutodiffPass(autodiff));
    function += "_grad";
  }
  pm.addNestedPass<mlir::func::FuncOp>(createTfcDecomposePass());
  // Folds what decomposition exposes (e.g. transpose pairs) and dedups the
  // constants it created before they are cloned into kernels; CSE shares
  // what every attention layer rebuilds (the causal mask).
  pm.addPass(mlir::createCanonicalizerPass());
  pm.addPass(mlir::createCSEPass());
  pm.addNestedPass<mlir::func::FuncOp>(createTfcFormKernelsPass());
  TfcConvertToExecPassOptions convert;
  convert.function = function;
  pm.addPass(createTfcConvertToExecPass(convert));
  // Layers repeat the same kernels: compile each distinct one once.
  pm.addPass(createTfcDedupeKernelsPass());
}

mlir::LogicalResult tfc::buildTrainPipeline(
    mlir::OpPassManager &pm, llvm::StringRef stepOptions,
    llvm::function_ref<mlir::LogicalResult(const llvm::Twine &)> errorHandler) {
  // The pass parses its own options: one list of them, no copy here.
  TfcBuildTrainStepPassOptions options;
  if (mlir::failed(
          parseBuildTrainStepOptions(stepOptions, options, errorHandler)))
    return mlir::failure();
  pm.addPass(createTfcBuildTrainStepPass(options));
  // Every function the pass builds becomes an entry of one program.
  LowerToExecOptions lower;
  lower.function = llvm::join(trainStepFunctions(options), ",");
  buildLowerToExecPipeline(pm, lower);
  return mlir::success();
}

mlir::LogicalResult tfc::trainAccumulateSteps(
    llvm::StringRef stepOptions, int64_t &accumulateSteps,
    llvm::function_ref<mlir::LogicalResult(const llvm::Twine &)> errorHandler) {
  TfcBuildTrainStepPassOptions options;
  if (mlir::failed(
          parseBuildTrainStepOptions(stepOptions, options, errorHandler)))
    return mlir::failure();
  accumulateSteps = options.accumulateSteps;
  return mlir::success();
}

void tfc::registerPipelines() {
  mlir::PassPipelineRegistration<LowerToExecOptions>(
      "tfc-lower-to-exec",
      "Lower a tfc function to a tfcrt module: decompose, canonicalize, "
      "CSE, form kernels, bufferize and convert to tfcrt, merge identical "
      "kernels (docs/execution.md)",
      buildLowerToExecPipeline);
  mlir::registerPassPipeline(
      "tfc-train-pipeline",
      "Build @train_step (or @accumulate_step and @apply_step) from a loss "
      "and lower them to tfcrt entries of the same names in one program; "
      "takes the options of --tfc-build-train-step",
      [](mlir::OpPassManager &pm, llvm::StringRef options,
         llvm::function_ref<mlir::LogicalResult(const llvm::Twine &)>
             errorHandler) {
        return buildTrainPipeline(pm, options, errorHandler);
      },
      [](llvm::function_ref<void(const mlir::detail::PassOptions &)>) {});
}
