//===- TfcGradOps.cpp - tfc backward ops ----------------------------------===//
//
// Result-type inference, verifiers and kernel roles of the backward ops.
// The rules mirror the forward ops' (TfcNNOps.cpp): a backward op accepts
// exactly the operand types its forward op produces, so autodiff can wire
// them without conversions and a mismatch means a broken graph.
//
//===----------------------------------------------------------------------===//

#include "dialects/tfc/TfcOps.h"
#include "dialects/tfc/TfcShapeUtils.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/STLExtras.h"

using namespace mlir;
using namespace mlir::tfc;

#define GET_OP_CLASSES
#include "dialects/tfc/TfcGradOps.cpp.inc"

void TfcDialect::registerGradOps() {
  addOperations<
#define GET_OP_LIST
#include "dialects/tfc/TfcGradOps.cpp.inc"
      >();
}

//===----------------------------------------------------------------------===//
// Norm gradients
//===----------------------------------------------------------------------===//

namespace {
/// Infers dx (x's type) followed by `numParamGrads` copies of the weight's
/// type when a weight is given. normalized_rank is checked here because the
/// statistics' expected type depends on it.
LogicalResult inferNormGradTypes(std::optional<Location> loc, Value x,
                                 Value weight, int64_t normalizedRank,
                                 unsigned numParamGrads,
                                 SmallVectorImpl<Type> &inferred) {
  auto xType = dyn_cast<RankedTensorType>(x.getType());
  if (!xType)
    return emitOptionalError(loc, "expected a ranked x");
  if (normalizedRank < 1 || normalizedRank > xType.getRank())
    return emitOptionalError(loc, "normalized_rank ", normalizedRank,
                             " must be in [1, ", xType.getRank(),
                             "] (the rank of x)");
  inferred.push_back(xType);
  if (weight)
    inferred.append(numParamGrads, weight.getType());
  return success();
}

/// normalized_rank must lie in [1, rank(x)]. The statistics (`mean`, `rstd`)
/// must be what the forward norm produced:
/// x's shape with the normalized dims set to 1, in accumulationType(x). The
/// weight must have the shape of the normalized dims (any float type).
LogicalResult
verifyNormGradOperands(Operation *op, Value x,
                       ArrayRef<std::pair<Value, StringRef>> stats,
                       Value weight, int64_t normalizedRank) {
  auto xType = cast<RankedTensorType>(x.getType());
  if (normalizedRank < 1 || normalizedRank > xType.getRank())
    return op->emitOpError()
           << "normalized_rank " << normalizedRank << " must be in [1, "
           << xType.getRank() << "] (the rank of x)";
  SmallVector<int64_t> statsShape(xType.getShape());
  std::fill(statsShape.end() - normalizedRank, statsShape.end(), 1);
  auto expected = RankedTensorType::get(
      statsShape, accumulationType(xType.getElementType()));
  for (auto [value, name] : stats)
    if (value.getType() != expected)
      return op->emitOpError()
             << name << " must be " << expected
             << " (x's shape with the normalized dims set to 1, in the "
                "accumulation type), got "
             << value.getType();
  if (!weight)
    return success();
  ArrayRef<int64_t> normShape = xType.getShape().take_back(normalizedRank);
  ArrayRef<int64_t> actual =
      cast<RankedTensorType>(weight.getType()).getShape();
  if (actual != normShape)
    return op->emitOpError() << "weight shape " << formatShape(actual)
                             << " must equal the normalized dims of x ("
                             << formatShape(normShape) << ")";
  return success();
}

RowGeometry normRowGeometry(Value x, int64_t normalizedRank) {
  return rowGeometryOf(cast<ShapedType>(x.getType()), -normalizedRank);
}
} // namespace

LogicalResult
LayerNormGradOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                  Adaptor adaptor,
                                  SmallVectorImpl<Type> &inferred) {
  return inferNormGradTypes(loc, adaptor.getX(), adaptor.getWeight(),
                            adaptor.getNormalizedRank(), 2, inferred);
}

LogicalResult LayerNormGradOp::verify() {
  return verifyNormGradOperands(*this, getX(),
                                {{getMean(), "mean"}, {getRstd(), "rstd"}},
                                getWeight(), getNormalizedRank());
}

KernelRole LayerNormGradOp::getKernelRole() { return KernelRole::Composite; }

LogicalResult RmsNormGradOp::inferReturnTypes(MLIRContext *,
                                              std::optional<Location> loc,
                                              Adaptor adaptor,
                                              SmallVectorImpl<Type> &inferred) {
  return inferNormGradTypes(loc, adaptor.getX(), adaptor.getWeight(),
                            adaptor.getNormalizedRank(), 1, inferred);
}

LogicalResult RmsNormGradOp::verify() {
  return verifyNormGradOperands(*this, getX(), {{getRstd(), "rstd"}},
                                getWeight(), getNormalizedRank());
}

KernelRole RmsNormGradOp::getKernelRole() { return KernelRole::Composite; }

LogicalResult LayerNormGradInputOp::verify() {
  return verifyNormGradOperands(*this, getX(),
                                {{getMean(), "mean"}, {getRstd(), "rstd"}},
                                getWeight(), getNormalizedRank());
}

KernelRole LayerNormGradInputOp::getKernelRole() {
  return KernelRole::RowReduction;
}

RowGeometry LayerNormGradInputOp::getRowGeometry() {
  return normRowGeometry(getX(), getNormalizedRank());
}

LogicalResult RmsNormGradInputOp::verify() {
  return verifyNormGradOperands(*this, getX(), {{getRstd(), "rstd"}},
                                getWeight(), getNormalizedRank());
}

KernelRole RmsNormGradInputOp::getKernelRole() {
  return KernelRole::RowReduction;
}

RowGeometry RmsNormGradInputOp::getRowGeometry() {
  return normRowGeometry(getX(), getNormalizedRank());
}

//===----------------------------------------------------------------------===//
// SoftmaxGradOp, LogSoftmaxGradOp
//===----------------------------------------------------------------------===//

namespace {
LogicalResult verifyGradDim(Operation *op, Value y, int64_t dim) {
  int64_t rank = cast<RankedTensorType>(y.getType()).getRank();
  if (!normalizeDim(dim, rank))
    return op->emitOpError()
           << "dim " << dim << " is out of range [" << -rank << ", " << rank
           << ") for a rank-" << rank << " operand";
  return success();
}

/// As the forward softmax: a row kernel over the innermost dim, a composite
/// (transposed by --tfc-decompose) over any other.
KernelRole softmaxGradRole(Value y, int64_t dim) {
  int64_t rank = cast<RankedTensorType>(y.getType()).getRank();
  std::optional<int64_t> d = normalizeDim(dim, rank);
  return d && *d == rank - 1 ? KernelRole::RowReduction : KernelRole::Composite;
}
} // namespace

LogicalResult SoftmaxGradOp::verify() {
  return verifyGradDim(*this, getY(), getDim());
}
KernelRole SoftmaxGradOp::getKernelRole() {
  return softmaxGradRole(getY(), getDim());
}
RowGeometry SoftmaxGradOp::getRowGeometry() {
  return rowGeometryOf(cast<ShapedType>(getY().getType()), -1);
}

LogicalResult LogSoftmaxGradOp::verify() {
  return verifyGradDim(*this, getY(), getDim());
}
KernelRole LogSoftmaxGradOp::getKernelRole() {
  return softmaxGradRole(getY(), getDim());
}
RowGeometry LogSoftmaxGradOp::getRowGeometry() {
  return rowGeometryOf(cast<ShapedType>(getY().getType()), -1);
}

//===----------------------------------------------------------------------===//
// CrossEntropyGradOp
//===----------------------------------------------------------------------===//

LogicalResult
CrossEntropyGradOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                     Adaptor adaptor,
                                     SmallVectorImpl<Type> &inferred) {
  auto logits = dyn_cast<RankedTensorType>(adaptor.getLogits().getType());
  if (!logits)
    return emitOptionalError(loc, "expected ranked logits");
  inferred.push_back(logits);
  return success();
}

LogicalResult CrossEntropyGradOp::verify() {
  auto logits = cast<RankedTensorType>(getLogits().getType());
  auto labels = cast<RankedTensorType>(getLabels().getType());
  auto dloss = cast<RankedTensorType>(getDloss().getType());
  if (logits.getRank() != 2)
    return emitOpError() << "logits must be 2-d [N, C], got rank "
                         << logits.getRank();
  if (labels.getRank() != 1 || labels.getDimSize(0) != logits.getDimSize(0))
    return emitOpError() << "labels must be 1-d with one label per logits row ("
                         << logits.getDimSize(0) << "), got "
                         << formatShape(labels.getShape());
  Type acc = accumulationType(logits.getElementType());
  if (dloss.getElementType() != acc)
    return emitOpError() << "dloss must have the loss type " << acc
                         << " (accumulationType of the logits), got "
                         << dloss.getElementType();
  double smoothing = getLabelSmoothing().convertToDouble();
  if (!(smoothing >= 0.0 && smoothing <= 1.0))
    return emitOpError() << "label_smoothing must be in [0, 1], got "
                         << smoothing;
  unsigned width = labels.getElementType().getIntOrFloatBitWidth();
  if (!llvm::isIntN(width, getIgnoreIndex()))
    return emitOpError() << "ignore_index " << getIgnoreIndex()
                         << " does not fit the labels' element type "
                         << labels.getElementType();
  return success();
}

KernelRole CrossEntropyGradOp::getKernelRole() {
  return KernelRole::RowReduction;
}

RowGeometry CrossEntropyGradOp::getRowGeometry() {
  return rowGeometryOf(cast<ShapedType>(getLogits().getType()), -1);
}

//===----------------------------------------------------------------------===//
// EmbeddingGradOp
//===----------------------------------------------------------------------===//

LogicalResult EmbeddingGradOp::verify() {
  auto dy = cast<RankedTensorType>(getDy().getType());
  auto ids = cast<RankedTensorType>(getIds().getType());
  auto table = cast<RankedTensorType>(getDtable().getType());
  if (table.getRank() != 2)
    return emitOpError() << "dtable must be 2-d [V, D], got rank "
                         << table.getRank();
  if (table.getElementType() != dy.getElementType())
    return emitOpError() << "dtable element type " << table.getElementType()
                         << " must equal dy's " << dy.getElementType();
  SmallVector<int64_t> expected(ids.getShape());
  expected.push_back(table.getDimSize(1));
  if (dy.getShape() != ArrayRef<int64_t>(expected))
    return emitOpError() << "dy shape " << formatShape(dy.getShape())
                         << " must be ids.shape + [D] ("
                         << formatShape(expected) << ")";
  return success();
}

KernelRole EmbeddingGradOp::getKernelRole() { return KernelRole::Scatter; }
