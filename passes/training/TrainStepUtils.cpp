//===- TrainStepUtils.cpp - small graph builders of the train step --------===//

#include "passes/training/TrainStepUtils.h"

#include "dialects/tfc/TfcOps.h"
#include "dialects/tfc/TfcVjps.h"

#include <cmath>

using namespace mlir;
using namespace mlir::tfc;

namespace tfc {

Value sumAll(OpBuilder &builder, Location loc, Value x) {
  auto type = tensorTypeOf(x);
  if (type.getRank() == 0)
    return x;
  SmallVector<int64_t> dims =
      llvm::to_vector(llvm::seq<int64_t>(0, type.getRank()));
  return builder.create<ReduceSumOp>(
      loc, RankedTensorType::get({}, type.getElementType()), x,
      builder.getDenseI64ArrayAttr(dims), UnitAttr());
}

Value i64Scalar(OpBuilder &builder, Location loc, int64_t value) {
  Type i64 = builder.getI64Type();
  auto type = RankedTensorType::get({}, i64);
  return builder.create<ConstantOp>(
      loc, DenseElementsAttr::get(type, builder.getIntegerAttr(i64, value)));
}

Type optimizerComputeType(Value param) {
  Type element = tensorTypeOf(param).getElementType();
  return element.isF64() ? element : Float32Type::get(param.getContext());
}

Value onFirstStepUse(OpBuilder &builder, Location loc, Value step, double init,
                     Value x) {
  VjpBuilder v(builder, loc);
  Value one = i64Scalar(builder, loc, 1);
  Value first = v.compare(CompareDirection::eq, step, one);
  Value initial = v.scalar(tensorTypeOf(x).getElementType(), init);
  return v.select(first, initial, x);
}

Value stepAsF64(OpBuilder &builder, Location loc, Value step) {
  return VjpBuilder(builder, loc).convert(step, builder.getF64Type());
}

Value powOfStep(OpBuilder &builder, Location loc, double base, Value t) {
  VjpBuilder v(builder, loc);
  Value logBase = v.scalar(builder.getF64Type(), std::log(base));
  Value exponent = v.mul(t, logBase);
  return builder.create<ExpOp>(loc, exponent.getType(), exponent);
}

Value firstMoment(OpBuilder &builder, Location loc, Value m, Value grad,
                  double beta1) {
  VjpBuilder v(builder, loc);
  Type type = tensorTypeOf(m).getElementType();
  Value beta = v.scalar(type, beta1);
  Value rest = v.scalar(type, 1.0 - beta1);
  Value kept = v.mul(m, beta);
  Value added = v.mul(grad, rest);
  return v.add(kept, added);
}

Value secondMoment(OpBuilder &builder, Location loc, Value m, Value grad,
                   double beta2) {
  VjpBuilder v(builder, loc);
  Type type = tensorTypeOf(m).getElementType();
  Value beta = v.scalar(type, beta2);
  Value rest = v.scalar(type, 1.0 - beta2);
  Value kept = v.mul(m, beta);
  Value scaled = v.mul(rest, grad);
  Value added = v.mul(scaled, grad);
  return v.add(kept, added);
}

Value addL2Penalty(OpBuilder &builder, Location loc, Value grad, Value param,
                   double weightDecay) {
  if (weightDecay == 0.0)
    return grad;
  VjpBuilder v(builder, loc);
  Value decay = v.scalar(tensorTypeOf(param).getElementType(), weightDecay);
  Value penalty = v.mul(param, decay);
  return v.add(grad, penalty);
}

} // namespace tfc
