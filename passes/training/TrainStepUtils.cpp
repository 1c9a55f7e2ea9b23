//===- TrainStepUtils.cpp - small graph builders of the train step --------===//

#include "passes/training/TrainStepUtils.h"

#include "dialects/tfc/TfcOps.h"
#include "dialects/tfc/TfcVjps.h"

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

} // namespace tfc
