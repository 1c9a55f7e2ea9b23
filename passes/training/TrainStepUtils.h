//===- TrainStepUtils.h - small graph builders of the train step -*- C++ -*-===//
//
// Helpers shared by the pieces of --tfc-build-train-step (the skeleton, the
// loss scaler, the learning-rate schedule and the optimizer rules).
//
//===----------------------------------------------------------------------===//

#ifndef TFC_PASSES_TRAINING_TRAINSTEPUTILS_H
#define TFC_PASSES_TRAINING_TRAINSTEPUTILS_H

#include "mlir/IR/Builders.h"

namespace tfc {

/// The sum of every element of `x` as a 0-d tensor of x's element type.
mlir::Value sumAll(mlir::OpBuilder &builder, mlir::Location loc, mlir::Value x);

/// A 0-d i64 constant.
mlir::Value i64Scalar(mlir::OpBuilder &builder, mlir::Location loc,
                      int64_t value);

// Shared by the optimizers composed of plain tfc ops after torch.optim's
// single-tensor steps (RMSprop.cpp, Adagrad.cpp, ...).

/// The element type such an optimizer computes in and keeps its state in:
/// f64 for f64 parameters, else f32 (the master-weight type).
mlir::Type optimizerComputeType(mlir::Value param);

/// `x` on every step but the first (`step`, the count after the increment,
/// equal to 1), where it reads as `init`: state that torch starts at a
/// non-zero value, while the runtime zero-fills state. A skipped first step
/// does not advance the count, so the next step is the first again.
mlir::Value onFirstStepUse(mlir::OpBuilder &builder, mlir::Location loc,
                           mlir::Value step, double init, mlir::Value x);

/// The step count as a 0-d f64, for the scalars torch forms from it in
/// Python floats (bias corrections, step sizes).
mlir::Value stepAsF64(mlir::OpBuilder &builder, mlir::Location loc,
                      mlir::Value step);

/// base^t in f64 for a 0-d f64 `t` >= 1 and 0 <= base < 1, as
/// exp(t * ln(base)) (tfc.pow's exponent is a constant).
mlir::Value powOfStep(mlir::OpBuilder &builder, mlir::Location loc, double base,
                      mlir::Value t);

/// torch's first moment `m.mul_(beta1).add_(grad, alpha=1 - beta1)`, as
/// m * beta1 + grad * (1 - beta1) (ATen fuses the second product and the
/// sum; tfc rounds each).
mlir::Value firstMoment(mlir::OpBuilder &builder, mlir::Location loc,
                        mlir::Value m, mlir::Value grad, double beta1);

/// torch's second moment `v.mul_(beta2).addcmul_(grad, grad, value=1 -
/// beta2)`, as v * beta2 + ((1 - beta2) * grad) * grad (addcmul's order).
mlir::Value secondMoment(mlir::OpBuilder &builder, mlir::Location loc,
                         mlir::Value v, mlir::Value grad, double beta2);

/// torch's L2 penalty `grad.add(param, alpha=weight_decay)`; `grad` itself
/// when weightDecay is 0.
mlir::Value addL2Penalty(mlir::OpBuilder &builder, mlir::Location loc,
                         mlir::Value grad, mlir::Value param,
                         double weightDecay);

} // namespace tfc

#endif // TFC_PASSES_TRAINING_TRAINSTEPUTILS_H
