//===- LossScaler.cpp - dynamic loss scaling in the train step ------------===//

#include "passes/training/LossScaler.h"

#include "passes/training/TrainStepUtils.h"

#include "dialects/tfc/TfcOps.h"
#include "dialects/tfc/TfcVjps.h"

#include <cmath>

using namespace mlir;
using namespace mlir::tfc;

namespace tfc {

std::string checkLossScalerOptions(const TfcBuildTrainStepPassOptions &o) {
  if (!o.lossScaling)
    return "";
  if (!(std::isfinite(o.initScale) && o.initScale > 0))
    return "init-scale must be positive and finite";
  if (!(std::isfinite(o.growthFactor) && o.growthFactor > 1))
    return "growth-factor must be finite and > 1";
  if (!(o.backoffFactor > 0 && o.backoffFactor < 1))
    return "backoff-factor must lie in (0, 1)";
  if (o.growthInterval < 1)
    return "growth-interval must be at least 1";
  if (!(std::isfinite(o.minScale) && o.minScale >= 0))
    return "min-scale must be non-negative and finite (0: no floor)";
  if (!(std::isfinite(o.maxScale) && o.maxScale >= 0))
    return "max-scale must be non-negative and finite (0: no ceiling)";
  if (o.initScale < o.minScale || (o.maxScale > 0 && o.initScale > o.maxScale))
    return "init-scale must lie in [min-scale, max-scale]";
  return "";
}

Value LossScaler::currentScale(Value stored) {
  VjpBuilder v(b, loc);
  Type f32 = b.getF32Type();
  // One statement per op: the IR's order must not depend on the compiler's
  // order of evaluating arguments.
  Value zero = v.scalar(f32, 0.0);
  Value init = v.scalar(f32, options.initScale);
  Value fresh = v.compare(CompareDirection::eq, stored, zero);
  return v.select(fresh, init, stored);
}

Value LossScaler::unscaleAndCheck(MutableArrayRef<Value> grads,
                                       Value scale) {
  VjpBuilder v(b, loc);
  Type f32 = b.getF32Type();
  // x * 0 is 0 for finite x and NaN otherwise, so one sum finds any inf/NaN.
  Value inv = v.div(v.scalar(f32, 1.0), scale);
  Value bad = v.scalar(f32, 0.0);
  for (Value &grad : grads) {
    Type elt = tensorTypeOf(grad).getElementType();
    Value probe = v.convert(v.mul(grad, v.scalar(elt, 0.0)), f32);
    bad = v.add(bad, sumAll(b, loc, probe));
    grad = v.mul(grad, v.convert(inv, elt));
  }
  return v.compare(CompareDirection::ne, bad, v.scalar(f32, 0.0));
}

std::pair<Value, Value> LossScaler::update(Value scale, Value tracker,
                                                Value foundInf) {
  VjpBuilder v(b, loc);
  Type f32 = b.getF32Type();
  // GradScaler's rule: back off on overflow; grow after growth-interval
  // clean steps in a row; either way the tracker restarts.
  Value counted = v.add(tracker, i64Scalar(b, loc, 1));
  Value grow = v.compare(CompareDirection::eq, counted,
                         i64Scalar(b, loc, options.growthInterval));
  Value cleanScale =
      v.select(grow, v.mul(scale, v.scalar(f32, options.growthFactor)), scale);
  Value cleanTracker = v.select(grow, i64Scalar(b, loc, 0), counted);
  Value next = v.select(
      foundInf, v.mul(scale, v.scalar(f32, options.backoffFactor)), cleanScale);
  // The bounds (not in GradScaler): a floor keeps a run of overflows from
  // driving the scale to 0, a ceiling keeps 16-bit gradients from
  // overflowing after long clean stretches.
  if (options.minScale > 0)
    next = b.create<MaximumOp>(loc, next.getType(), next,
                               v.scalar(f32, options.minScale));
  if (options.maxScale > 0)
    next = b.create<MinimumOp>(loc, next.getType(), next,
                               v.scalar(f32, options.maxScale));
  return {next, v.select(foundInf, i64Scalar(b, loc, 0), cleanTracker)};
}

} // namespace tfc
