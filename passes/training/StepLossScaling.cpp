//===- StepLossScaling.cpp - --tfc-step-loss-scaling ----------------------===//
//
// Stage 3: GradScaler in the graph. The seed is multiplied by the scale;
// where the step returns gradients they are unscaled and checked, and the
// scale and its tracker are updated (the math is LossScaler's).
//
//===----------------------------------------------------------------------===//

#include "passes/training/LossScaler.h"
#include "passes/training/StepForm.h"
#include "passes/training/StepStages.h"

#include "dialects/tfc/TfcOps.h"
#include "dialects/tfc/TfcVjps.h"

namespace tfc {
#define GEN_PASS_DEF_TFCSTEPLOSSSCALINGPASS
#include "passes/training/Passes.h.inc"
} // namespace tfc

using namespace mlir;
using namespace mlir::tfc;

namespace {

struct TfcStepLossScalingPass
    : public ::tfc::impl::TfcStepLossScalingPassBase<TfcStepLossScalingPass> {
  using TfcStepLossScalingPassBase::TfcStepLossScalingPassBase;

  void runOnOperation() override {
    TFC_STEP_OPTIONS_OF_PASS(TFC_STEP_LOSS_SCALING_OPTIONS, options)
    if (failed(::tfc::runStepLossScaling(getOperation(), options)))
      signalPassFailure();
  }
};

} // namespace

namespace tfc {

LogicalResult runStepLossScaling(ModuleOp module,
                                 const TfcBuildTrainStepPassOptions &options) {
  StringRef flag = stepStageFlag(StepStage::lossScaling);
  if (std::string problem = checkLossScalerOptions(options); !problem.empty())
    return module.emitError(flag) << ": " << problem;
  FailureOr<SmallVector<func::FuncOp>> steps =
      enterStage(module, StepStage::lossScaling, /*needGradients=*/false);
  if (failed(steps))
    return failure();
  Builder b(module.getContext());
  auto f32 = RankedTensorType::get({}, b.getF32Type());
  auto i64 = RankedTensorType::get({}, b.getI64Type());
  for (func::FuncOp func : *steps) {
    FailureOr<BlockArgument> stored = addStepArgument(
        func, StepStage::lossScaling, f32, TfcDialect::kStateAttrName,
        kLossScaleState);
    if (failed(stored))
      return failure();
    // The scale of this step, read once: right after the seed (where the
    // backward starts), or first thing in a step without one.
    Value seed = lossSeed(func);
    OpBuilder builder(func.getContext());
    if (seed)
      builder.setInsertionPointAfterValue(seed);
    else
      builder.setInsertionPointToStart(&func.front());
    Location loc = stepReturn(func).getLoc();
    LossScaler scaler(options, builder, loc);
    Value scale = scaler.currentScale(*stored);
    // scaler.scale(loss).backward().
    scaleLossSeed(func, [&](OpBuilder &seedBuilder, Value seedValue) {
      VjpBuilder v(seedBuilder, loc);
      return v.mul(seedValue,
                   v.convert(scale, tensorTypeOf(seedValue).getElementType()));
    });

    SmallVector<StepGradient> grads = stepGradients(func);
    if (grads.empty())
      continue; // @accumulate_step reads the scale, never changes it
    FailureOr<BlockArgument> tracker = addStepArgument(
        func, StepStage::lossScaling, i64, TfcDialect::kStateAttrName,
        kGrowthTrackerState);
    if (failed(tracker))
      return failure();
    builder.setInsertionPoint(stepReturn(func));
    SmallVector<Value> values = llvm::map_to_vector(
        grads, [](const StepGradient &grad) { return grad.value; });
    Value foundInf = scaler.unscaleAndCheck(values, scale);
    for (auto [grad, value] : llvm::zip(grads, values))
      setStepResult(func, grad.result, value);
    auto [nextScale, nextTracker] = scaler.update(scale, *tracker, foundInf);
    addStepResult(func, nextScale, TfcDialect::kUpdateAttrName,
                  kLossScaleState);
    addStepResult(func, nextTracker, TfcDialect::kUpdateAttrName,
                  kGrowthTrackerState);
    addStepResult(func, foundInf, TfcDialect::kOutputAttrName,
                  kFoundInfOutput);
  }
  return success();
}

} // namespace tfc
