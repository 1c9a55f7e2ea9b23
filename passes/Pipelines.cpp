//===- Pipelines.cpp - named tfc pass pipelines ---------------------------===//

#include "passes/Pipelines.h"

#include "passes/autodiff/Passes.h"
#include "passes/lowering/Passes.h"
#include "passes/training/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

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
}

mlir::LogicalResult tfc::buildTrainPipeline(
    mlir::OpPassManager &pm, llvm::StringRef stepOptions,
    llvm::function_ref<mlir::LogicalResult(const llvm::Twine &)> errorHandler) {
  // The pass parses its own options: one list of them, no copy here.
  std::unique_ptr<mlir::Pass> step = createTfcBuildTrainStepPass();
  if (mlir::failed(step->initializeOptions(stepOptions, errorHandler)))
    return mlir::failure();
  pm.addPass(std::move(step));
  LowerToExecOptions lower;
  lower.function = "train_step";
  buildLowerToExecPipeline(pm, lower);
  return mlir::success();
}

void tfc::registerPipelines() {
  mlir::PassPipelineRegistration<LowerToExecOptions>(
      "tfc-lower-to-exec",
      "Lower a tfc function to a tfcrt module: decompose, canonicalize, "
      "CSE, form kernels, bufferize and convert to tfcrt (docs/execution.md)",
      buildLowerToExecPipeline);
  mlir::registerPassPipeline(
      "tfc-train-pipeline",
      "Build @train_step from a loss and lower it to tfcrt.entry "
      "@train_step; takes the options of --tfc-build-train-step",
      [](mlir::OpPassManager &pm, llvm::StringRef options,
         llvm::function_ref<mlir::LogicalResult(const llvm::Twine &)>
             errorHandler) {
        return buildTrainPipeline(pm, options, errorHandler);
      },
      [](llvm::function_ref<void(const mlir::detail::PassOptions &)>) {});
}
