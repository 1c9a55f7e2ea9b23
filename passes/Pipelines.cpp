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

void tfc::buildTrainPipeline(mlir::OpPassManager &pm,
                             const TrainPipelineOptions &options) {
  TfcBuildTrainStepPassOptions step;
  step.function = options.function;
  step.optimizer = options.optimizer;
  step.beta1 = options.beta1;
  step.beta2 = options.beta2;
  step.eps = options.eps;
  step.weightDecay = options.weightDecay;
  step.momentum = options.momentum;
  step.nesterov = options.nesterov;
  step.maxGradNorm = options.maxGradNorm;
  step.lossScaling = options.lossScaling;
  step.initScale = options.initScale;
  step.growthFactor = options.growthFactor;
  step.backoffFactor = options.backoffFactor;
  step.growthInterval = options.growthInterval;
  pm.addPass(createTfcBuildTrainStepPass(step));
  LowerToExecOptions lower;
  lower.function = "train_step";
  buildLowerToExecPipeline(pm, lower);
}

void tfc::registerPipelines() {
  mlir::PassPipelineRegistration<LowerToExecOptions>(
      "tfc-lower-to-exec",
      "Lower a tfc function to a tfcrt module: decompose, canonicalize, "
      "CSE, form kernels, bufferize and convert to tfcrt (docs/execution.md)",
      buildLowerToExecPipeline);
  mlir::PassPipelineRegistration<TrainPipelineOptions>(
      "tfc-train-pipeline",
      "Build @train_step from a loss (--tfc-build-train-step, options "
      "forwarded) and lower it to tfcrt.entry @train_step",
      buildTrainPipeline);
}
