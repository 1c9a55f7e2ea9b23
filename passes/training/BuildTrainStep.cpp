//===- BuildTrainStep.cpp - --tfc-build-train-step ------------------------===//
//
// The whole training step in one pass: the five stages of StepStages.h run
// in order on the module with this pass's options (each stage takes the
// options of its own list). --tfc-train-pipeline adds the same stages to its
// pass manager; this pass is the one-flag form and the holder of the full
// option list that tools parse.
//
//===----------------------------------------------------------------------===//

#include "passes/training/Passes.h"

#include "passes/training/LossScaler.h"
#include "passes/training/StepStages.h"

#include "llvm/ADT/StringExtras.h"

namespace tfc {
#define GEN_PASS_DEF_TFCBUILDTRAINSTEPPASS
#include "passes/training/Passes.h.inc"
} // namespace tfc

using namespace mlir;

namespace {

struct TfcBuildTrainStepPass
    : public ::tfc::impl::TfcBuildTrainStepPassBase<TfcBuildTrainStepPass> {
  using TfcBuildTrainStepPassBase::TfcBuildTrainStepPassBase;

  void runOnOperation() override {
    ::tfc::TfcBuildTrainStepPassOptions full = options();
    // Every option is checked before any stage changes the module.
    if (std::string problem = ::tfc::checkBuildTrainStepOptions(full);
        !problem.empty()) {
      getOperation().emitError("--tfc-build-train-step: ") << problem;
      return signalPassFailure();
    }
    OpPassManager stages(ModuleOp::getOperationName());
    ::tfc::addTrainStepStages(stages, full);
    if (failed(runPipeline(stages, getOperation())))
      signalPassFailure();
  }

  /// The pass options as the plain struct the stages take.
  ::tfc::TfcBuildTrainStepPassOptions options() const {
    TFC_STEP_OPTIONS_OF_PASS(TFC_STEP_GRADIENTS_OPTIONS, o)
    {
      auto &to = o;
      const auto &from = *this;
      TFC_STEP_ACCUMULATE_OPTIONS(TFC_COPY_STEP_OPTION)
      TFC_STEP_LOSS_SCALING_OPTIONS(TFC_COPY_STEP_OPTION)
      TFC_STEP_CLIP_OPTIONS(TFC_COPY_STEP_OPTION)
      TFC_STEP_OPTIMIZER_OPTIONS(TFC_COPY_STEP_OPTION)
    }
    o.lossScaling = lossScaling;
    return o;
  }
};

} // namespace

namespace tfc {

void addTrainStepStages(OpPassManager &pm,
                        const TfcBuildTrainStepPassOptions &options) {
  TfcStepGradientsPassOptions gradients;
  copyStepGradientsOptions(gradients, options);
  pm.addPass(createTfcStepGradientsPass(gradients));
  if (options.accumulateSteps > 1) {
    TfcStepAccumulatePassOptions accumulate;
    copyStepAccumulateOptions(accumulate, options);
    pm.addPass(createTfcStepAccumulatePass(accumulate));
  }
  if (options.lossScaling) {
    TfcStepLossScalingPassOptions scaling;
    copyStepLossScalingOptions(scaling, options);
    pm.addPass(createTfcStepLossScalingPass(scaling));
  }
  if (options.maxGradNorm > 0 || options.clipGradValue > 0) {
    TfcStepClipPassOptions clip;
    copyStepClipOptions(clip, options);
    pm.addPass(createTfcStepClipPass(clip));
  }
  TfcStepOptimizerPassOptions optimizer;
  copyStepOptimizerOptions(optimizer, options);
  pm.addPass(createTfcStepOptimizerPass(optimizer));
}

std::string
checkBuildTrainStepOptions(const TfcBuildTrainStepPassOptions &o) {
  for (auto check : {checkStepOptimizerOptions, checkStepClipOptions,
                     checkStepAccumulateOptions, checkLossScalerOptions})
    if (std::string error = check(o); !error.empty())
      return error;
  return "";
}

SmallVector<std::string>
trainStepFunctions(const TfcBuildTrainStepPassOptions &options) {
  if (options.accumulateSteps > 1)
    return {"accumulate_step", "apply_step"};
  return {"train_step"};
}

} // namespace tfc

namespace tfc {
LogicalResult parseBuildTrainStepOptions(
    StringRef text, TfcBuildTrainStepPassOptions &options,
    function_ref<LogicalResult(const Twine &)> errorHandler) {
  TfcBuildTrainStepPass pass;
  // One option at a time: llvm::cl prints a value it cannot parse
  // ("max-grad-norm=1.x") to stderr and hands the pass's error handler an
  // empty message, which would leave the JIT's and the C API's callers none.
  SmallVector<StringRef> tokens;
  llvm::SplitString(text, tokens);
  for (StringRef token : tokens) {
    std::string message;
    if (succeeded(pass.initializeOptions(token, [&](const Twine &m) {
          message = m.str();
          return failure();
        })))
      continue;
    if (StringRef(message).trim().empty()) {
      auto [key, value] = token.split('=');
      message = ("invalid value '" + value + "' for option " + key).str();
    }
    return errorHandler(message);
  }
  options = pass.options();
  return success();
}
} // namespace tfc
