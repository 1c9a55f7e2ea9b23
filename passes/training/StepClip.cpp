//===- StepClip.cpp - --tfc-step-clip -------------------------------------===//
//
// Stage 4: torch.nn.utils.clip_grad_value_ (each element clamped) and then
// clip_grad_norm_ over every gradient the step returns: one norm in f32,
// one coefficient, every gradient scaled by it.
//
//===----------------------------------------------------------------------===//

#include "passes/training/StepForm.h"
#include "passes/training/StepStages.h"
#include "passes/training/TrainStepUtils.h"

#include "dialects/tfc/TfcOps.h"
#include "dialects/tfc/TfcVjps.h"

#include <cmath>

namespace tfc {
#define GEN_PASS_DEF_TFCSTEPCLIPPASS
#include "passes/training/Passes.h.inc"
} // namespace tfc

using namespace mlir;
using namespace mlir::tfc;

namespace {

struct TfcStepClipPass
    : public ::tfc::impl::TfcStepClipPassBase<TfcStepClipPass> {
  using TfcStepClipPassBase::TfcStepClipPassBase;

  void runOnOperation() override {
    TFC_STEP_OPTIONS_OF_PASS(TFC_STEP_CLIP_OPTIONS, options)
    if (failed(::tfc::runStepClip(getOperation(), options)))
      signalPassFailure();
  }
};

} // namespace

namespace tfc {

std::string checkStepClipOptions(const TfcBuildTrainStepPassOptions &options) {
  if (!std::isfinite(options.maxGradNorm) || options.maxGradNorm < 0)
    return "max-grad-norm must be non-negative and finite (0: off)";
  if (!std::isfinite(options.clipGradValue) || options.clipGradValue < 0)
    return "clip-grad-value must be non-negative and finite (0: off)";
  return "";
}

LogicalResult runStepClip(ModuleOp module,
                          const TfcBuildTrainStepPassOptions &options) {
  if (std::string problem = checkStepClipOptions(options); !problem.empty())
    return module.emitError(stepStageFlag(StepStage::clip)) << ": " << problem;
  if (options.maxGradNorm == 0 && options.clipGradValue == 0)
    return success();
  FailureOr<SmallVector<func::FuncOp>> steps =
      enterStage(module, StepStage::clip, /*needGradients=*/true);
  if (failed(steps))
    return failure();
  for (func::FuncOp func : *steps) {
    func::ReturnOp ret = stepReturn(func);
    OpBuilder builder(ret);
    setInsertionPointAfterGradients(builder, func);
    VjpBuilder v(builder, ret.getLoc());
    Location loc = ret.getLoc();
    Type f32 = builder.getF32Type();
    SmallVector<StepGradient> grads = stepGradients(func);
    if (options.clipGradValue > 0) {
      // clamp(g, -v, v) as torch's clamp_: NaN stays NaN.
      for (StepGradient &grad : grads) {
        Type t = tensorTypeOf(grad.value).getElementType();
        Value high = v.scalar(t, options.clipGradValue);
        Value low = v.scalar(t, -options.clipGradValue);
        Value g = grad.value;
        Value clamped = v.select(v.compare(CompareDirection::gt, g, high), high,
                                 v.select(v.compare(CompareDirection::lt, g, low),
                                          low, g));
        setStepResult(func, grad.result, clamped);
        grad.value = clamped;
      }
    }
    if (options.maxGradNorm == 0)
      continue;
    Value total = v.scalar(f32, 0.0);
    for (const StepGradient &grad : grads) {
      Value g = v.convert(grad.value, f32);
      total = v.add(total, sumAll(builder, loc, v.mul(g, g)));
    }
    Value norm = builder.create<SqrtOp>(loc, total.getType(), total);
    Value coef = v.div(v.scalar(f32, options.maxGradNorm),
                       v.add(norm, v.scalar(f32, 1e-6)));
    Value clamped = builder.create<MinimumOp>(loc, coef.getType(), coef,
                                              v.scalar(f32, 1.0));
    for (const StepGradient &grad : grads)
      setStepResult(
          func, grad.result,
          v.mul(grad.value,
                v.convert(clamped, tensorTypeOf(grad.value).getElementType())));
  }
  return success();
}

} // namespace tfc
