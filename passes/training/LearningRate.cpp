//===- LearningRate.cpp - the learning-rate schedule on the device --------===//
//
// With s the steps taken before this one (the `step` state), lr the peak
// rate, W warmup_steps, T total_steps, all runtime inputs:
//
//   constant:       lr
//   s < W:          lr * (s + 1) / W                       (linear warmup)
//   otherwise       p = clamp((s - W) / max(1, T - W - 1), 0, 1)
//     warmup-cosine:  min_lr + (lr - min_lr) * 0.5 * (1 + cos(pi * p))
//     warmup-linear:  lr - (lr - min_lr) * p
//
// so the last of T steps runs at min_lr. Computed in the rates' type: f32
// (s and W exact up to 2^24 steps), or f64 when the model has f64
// parameters.
//
//===----------------------------------------------------------------------===//

#include "passes/training/LearningRate.h"

#include "dialects/tfc/TfcOps.h"
#include "dialects/tfc/TfcVjps.h"

#include <cmath>

using mlir::Value;
using namespace mlir::tfc;

namespace tfc {

llvm::SmallVector<ScheduleInput>
scheduleInputs(const TfcBuildTrainStepPassOptions &options) {
  if (options.schedule == "constant")
    return {{"lr", false}};
  return {{"lr", false},
          {"min_lr", false},
          {"warmup_steps", true},
          {"total_steps", true}};
}

bool isScheduleInputName(llvm::StringRef name) {
  TfcBuildTrainStepPassOptions widest;
  widest.schedule = "warmup-cosine";
  return llvm::any_of(scheduleInputs(widest), [&](const ScheduleInput &input) {
    return name == input.name;
  });
}

std::string checkScheduleOptions(const TfcBuildTrainStepPassOptions &options) {
  const std::string &name = options.schedule;
  if (name != "constant" && name != "warmup-cosine" && name != "warmup-linear")
    return "unknown schedule '" + name +
           "' (expected constant, warmup-cosine or warmup-linear)";
  return "";
}

Value buildLearningRate(mlir::OpBuilder &b, mlir::Location loc,
                        const TfcBuildTrainStepPassOptions &options,
                        llvm::ArrayRef<Value> inputs, Value stepsTaken) {
  Value lr = inputs[0];
  if (options.schedule == "constant")
    return lr;
  VjpBuilder v(b, loc);
  // The rates' type: f32, or f64 for a model with f64 parameters.
  mlir::Type rate = tensorTypeOf(lr).getElementType(), i64 = b.getI64Type();
  Value minLr = inputs[1], warmup = inputs[2], total = inputs[3];
  auto i64Const = [&](int64_t value) {
    auto type = mlir::RankedTensorType::get({}, i64);
    return b.create<ConstantOp>(
        loc, mlir::DenseElementsAttr::get(type, b.getIntegerAttr(i64, value)));
  };
  Value s = v.convert(stepsTaken, rate);
  Value w = v.convert(warmup, rate);
  // Warmup; its NaN/inf when W = 0 is never selected (s < 0 is false).
  Value one = v.scalar(rate, 1.0);
  Value warm = v.div(v.mul(lr, v.add(s, one)), w);
  // Decay progress p in [0, 1].
  Value spanSteps = v.sub(v.sub(total, warmup), i64Const(1));
  spanSteps = b.create<MaximumOp>(loc, spanSteps.getType(), spanSteps,
                                  i64Const(1));
  Value p = v.div(v.sub(s, w), v.convert(spanSteps, rate));
  p = b.create<MaximumOp>(loc, p.getType(), p, v.scalar(rate, 0.0));
  p = b.create<MinimumOp>(loc, p.getType(), p, one);
  Value range = v.sub(lr, minLr);
  Value decayed;
  if (options.schedule == "warmup-cosine") {
    Value angle = v.mul(p, v.scalar(rate, M_PI));
    Value cos = b.create<CosOp>(loc, angle.getType(), angle);
    Value half = v.mul(v.scalar(rate, 0.5), v.add(one, cos));
    decayed = v.add(minLr, v.mul(range, half));
  } else {
    decayed = v.sub(lr, v.mul(range, p));
  }
  Value warming = v.compare(CompareDirection::lt, stepsTaken, warmup);
  return v.select(warming, warm, decayed);
}

} // namespace tfc
