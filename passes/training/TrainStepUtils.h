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

} // namespace tfc

#endif // TFC_PASSES_TRAINING_TRAINSTEPUTILS_H
