//===- TfcNNOps.cpp - tfc neural-network ops ------------------------------===//
//
// Result-type inference, verifiers and kernel roles of embedding, the norms,
// softmax, dropout, attention and cross_entropy. Rules a result type depends
// on are checked in inferReturnTypes (the InferTypeOpInterface verifier runs
// it before verify()); the remaining operand and attribute rules are checked
// in verify().
//
//===----------------------------------------------------------------------===//

#include "dialects/tfc/TfcOps.h"
#include "dialects/tfc/TfcShapeUtils.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/STLExtras.h"

#include <cmath>
#include <limits>

using namespace mlir;
using namespace mlir::tfc;

#define GET_OP_CLASSES
#include "dialects/tfc/TfcNNOps.cpp.inc"

void TfcDialect::registerNNOps() {
  addOperations<
#define GET_OP_LIST
#include "dialects/tfc/TfcNNOps.cpp.inc"
      >();
}

//===----------------------------------------------------------------------===//
// EmbeddingOp
//===----------------------------------------------------------------------===//

LogicalResult EmbeddingOp::inferReturnTypes(MLIRContext *,
                                            std::optional<Location> loc,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &inferred) {
  // Builders may call this on operands the verifier has not seen yet.
  auto table = dyn_cast<RankedTensorType>(adaptor.getTable().getType());
  auto ids = dyn_cast<RankedTensorType>(adaptor.getIds().getType());
  if (!table || table.getRank() != 2 || !ids)
    return emitOptionalError(
        loc, "expected a rank-2 table and ranked ids to infer the result");
  SmallVector<int64_t> shape(ids.getShape());
  shape.push_back(table.getDimSize(1));
  inferred.push_back(RankedTensorType::get(shape, table.getElementType()));
  return success();
}

KernelRole EmbeddingOp::getKernelRole() { return KernelRole::Gather; }

//===----------------------------------------------------------------------===//
// LayerNormOp, RmsNormOp
//===----------------------------------------------------------------------===//

namespace {
/// Infers the types of a norm's results: `y` of x's type followed by
/// `numStats` statistics of x's shape with the normalized dims set to 1, in
/// accumulationType(x) because the kernel computes them in that precision
/// and the backward pass reads them back without a rounding step.
LogicalResult inferNormTypes(std::optional<Location> loc, Type xType,
                             int64_t normalizedRank, unsigned numStats,
                             SmallVectorImpl<Type> &inferred) {
  auto x = dyn_cast<RankedTensorType>(xType);
  if (!x)
    return emitOptionalError(loc, "expected a ranked x");
  if (normalizedRank < 1 || normalizedRank > x.getRank())
    return emitOptionalError(loc, "normalized_rank ", normalizedRank,
                             " must be in [1, ", x.getRank(),
                             "] (the rank of x)");
  SmallVector<int64_t> statsShape(x.getShape());
  std::fill(statsShape.end() - normalizedRank, statsShape.end(), 1);
  auto stats =
      RankedTensorType::get(statsShape, accumulationType(x.getElementType()));
  inferred.push_back(x);
  inferred.append(numStats, stats);
  return success();
}

/// Checks that an affine parameter (weight or bias), when present, has the
/// shape of x's normalized dims. Its dtype is free: fp32 parameters commonly
/// scale 16-bit activations.
LogicalResult verifyNormParam(Operation *op, Value param, StringRef name,
                              RankedTensorType x, int64_t normalizedRank) {
  if (!param)
    return success();
  ArrayRef<int64_t> expected = x.getShape().take_back(normalizedRank);
  ArrayRef<int64_t> actual = cast<RankedTensorType>(param.getType()).getShape();
  if (actual != expected)
    return op->emitOpError() << name << " shape " << formatShape(actual)
                             << " must equal the normalized dims of x ("
                             << formatShape(expected) << ")";
  return success();
}

LogicalResult verifyEps(Operation *op, double eps) {
  if (!(eps > 0.0) || !std::isfinite(eps))
    return op->emitOpError() << "eps must be positive and finite, got " << eps;
  return success();
}

RowGeometry normRowGeometry(Value x, int64_t normalizedRank) {
  return rowGeometryOf(cast<ShapedType>(x.getType()), -normalizedRank);
}
} // namespace

LogicalResult LayerNormOp::inferReturnTypes(MLIRContext *,
                                            std::optional<Location> loc,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &inferred) {
  return inferNormTypes(loc, adaptor.getX().getType(),
                        adaptor.getNormalizedRank(), /*numStats=*/2, inferred);
}

LogicalResult LayerNormOp::verify() {
  auto x = cast<RankedTensorType>(getX().getType());
  int64_t normalizedRank = getNormalizedRank();
  if (failed(
          verifyNormParam(*this, getWeight(), "weight", x, normalizedRank)) ||
      failed(verifyNormParam(*this, getBias(), "bias", x, normalizedRank)))
    return failure();
  return verifyEps(*this, getEps().convertToDouble());
}

KernelRole LayerNormOp::getKernelRole() { return KernelRole::RowReduction; }

RowGeometry LayerNormOp::getRowGeometry() {
  return normRowGeometry(getX(), getNormalizedRank());
}

LogicalResult RmsNormOp::inferReturnTypes(MLIRContext *,
                                          std::optional<Location> loc,
                                          Adaptor adaptor,
                                          SmallVectorImpl<Type> &inferred) {
  return inferNormTypes(loc, adaptor.getX().getType(),
                        adaptor.getNormalizedRank(), /*numStats=*/1, inferred);
}

LogicalResult RmsNormOp::verify() {
  auto x = cast<RankedTensorType>(getX().getType());
  if (failed(verifyNormParam(*this, getWeight(), "weight", x,
                             getNormalizedRank())))
    return failure();
  return verifyEps(*this, getEps().convertToDouble());
}

KernelRole RmsNormOp::getKernelRole() { return KernelRole::RowReduction; }

RowGeometry RmsNormOp::getRowGeometry() {
  return normRowGeometry(getX(), getNormalizedRank());
}

//===----------------------------------------------------------------------===//
// SoftmaxOp, LogSoftmaxOp
//===----------------------------------------------------------------------===//

namespace {
LogicalResult verifySoftmaxDim(Operation *op, Value x, int64_t dim) {
  int64_t rank = cast<RankedTensorType>(x.getType()).getRank();
  if (!normalizeDim(dim, rank))
    return op->emitOpError()
           << "dim " << dim << " is out of range [" << -rank << ", " << rank
           << ") for a rank-" << rank << " operand";
  return success();
}

/// Only a softmax over the innermost dimension reads contiguous rows; any
/// other dim is left to lowering (transpose or decomposition).
KernelRole softmaxKernelRole(Value x, int64_t dim) {
  int64_t rank = cast<RankedTensorType>(x.getType()).getRank();
  std::optional<int64_t> d = normalizeDim(dim, rank);
  return d && *d == rank - 1 ? KernelRole::RowReduction : KernelRole::Composite;
}

/// Rows are all positions of the other dimensions; for the innermost dim
/// (the only row-reduction case) they are contiguous.
RowGeometry softmaxRowGeometry(Value x, int64_t dim) {
  auto type = cast<RankedTensorType>(x.getType());
  std::optional<int64_t> d = normalizeDim(dim, type.getRank());
  if (!d)
    return rowGeometryOf(type, -1);
  RowGeometry geometry{1, type.getDimSize(*d)};
  for (auto [i, size] : llvm::enumerate(type.getShape()))
    if (static_cast<int64_t>(i) != *d)
      geometry.rows *= size;
  return geometry;
}
} // namespace

LogicalResult SoftmaxOp::verify() {
  return verifySoftmaxDim(*this, getX(), getDim());
}
KernelRole SoftmaxOp::getKernelRole() {
  return softmaxKernelRole(getX(), getDim());
}
RowGeometry SoftmaxOp::getRowGeometry() {
  return softmaxRowGeometry(getX(), getDim());
}

LogicalResult LogSoftmaxOp::verify() {
  return verifySoftmaxDim(*this, getX(), getDim());
}
KernelRole LogSoftmaxOp::getKernelRole() {
  return softmaxKernelRole(getX(), getDim());
}
RowGeometry LogSoftmaxOp::getRowGeometry() {
  return softmaxRowGeometry(getX(), getDim());
}

//===----------------------------------------------------------------------===//
// DropoutOp
//===----------------------------------------------------------------------===//

namespace {
/// p = 1 is rejected: the kept-value scale 1/(1-p) would be infinite and the
/// result all zeros, which a program should say with a constant instead.
LogicalResult verifyDropoutProbability(Operation *op, StringRef name,
                                       double p) {
  if (!(p >= 0.0 && p < 1.0))
    return op->emitOpError() << name << " must be in [0, 1), got " << p;
  return success();
}
} // namespace

LogicalResult DropoutOp::verify() {
  return verifyDropoutProbability(*this, "p", getP().convertToDouble());
}

//===----------------------------------------------------------------------===//
// AttentionOp
//===----------------------------------------------------------------------===//

LogicalResult AttentionOp::inferReturnTypes(MLIRContext *,
                                            std::optional<Location> loc,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &inferred) {
  auto q = dyn_cast<RankedTensorType>(adaptor.getQ().getType());
  auto v = dyn_cast<RankedTensorType>(adaptor.getV().getType());
  if (!q || !v || q.getRank() < 2 || v.getRank() < 2)
    return emitOptionalError(
        loc, "expected q and v of rank >= 2 to infer the result");
  // [..., T, D] x [..., S, Dv] -> [..., T, Dv]; the remaining shape rules
  // are checked by verify().
  SmallVector<int64_t> shape(q.getShape());
  shape.back() = v.getShape().back();
  inferred.push_back(RankedTensorType::get(shape, q.getElementType()));
  return success();
}

LogicalResult AttentionOp::verify() {
  auto q = cast<RankedTensorType>(getQ().getType());
  auto k = cast<RankedTensorType>(getK().getType());
  auto v = cast<RankedTensorType>(getV().getType());
  if (k.getRank() != q.getRank() || v.getRank() != q.getRank())
    return emitOpError() << "q, k and v must have the same rank, got "
                         << q.getRank() << ", " << k.getRank() << " and "
                         << v.getRank();
  // Batch dims must match exactly: broadcasting (e.g. grouped-query heads)
  // would change which kernel lowering can use, so it is spelled out with
  // tfc.broadcast_to instead.
  ArrayRef<int64_t> batch = q.getShape().drop_back(2);
  if (k.getShape().drop_back(2) != batch || v.getShape().drop_back(2) != batch)
    return emitOpError() << "batch dims of q (" << formatShape(batch)
                         << "), k (" << formatShape(k.getShape().drop_back(2))
                         << ") and v ("
                         << formatShape(v.getShape().drop_back(2))
                         << ") must be equal";
  int64_t rank = q.getRank();
  if (k.getDimSize(rank - 1) != q.getDimSize(rank - 1))
    return emitOpError() << "head dim of k (" << k.getDimSize(rank - 1)
                         << ") must equal that of q (" << q.getDimSize(rank - 1)
                         << ")";
  if (v.getDimSize(rank - 2) != k.getDimSize(rank - 2))
    return emitOpError() << "sequence length of v (" << v.getDimSize(rank - 2)
                         << ") must equal that of k (" << k.getDimSize(rank - 2)
                         << ")";
  if (Value mask = getMask()) {
    auto m = cast<RankedTensorType>(mask.getType());
    SmallVector<int64_t> scores(batch);
    scores.append({q.getDimSize(rank - 2), k.getDimSize(rank - 2)});
    Type e = m.getElementType();
    if (!e.isInteger(1) && e != q.getElementType())
      return emitOpError() << "mask must be i1 or q's element type "
                           << q.getElementType() << ", got " << e;
    // numpy broadcasting onto the scores, which keep their shape.
    bool fits = m.getRank() <= int64_t(scores.size());
    for (int64_t i = 1; fits && i <= m.getRank(); ++i) {
      int64_t d = m.getDimSize(m.getRank() - i);
      fits = d == 1 || d == scores[scores.size() - i];
    }
    if (!fits)
      return emitOpError() << "mask of shape " << formatShape(m.getShape())
                           << " does not broadcast to the scores' shape "
                           << formatShape(scores);
  }
  if (std::optional<APFloat> scale = getScale()) {
    double value = scale->convertToDouble();
    if (!(value > 0.0) || !std::isfinite(value))
      return emitOpError() << "scale must be positive and finite, got "
                           << value;
  }
  std::optional<APFloat> dropout = getDropout();
  // The custom syntax ties seed and offset to `dropout`; the generic form
  // can separate them, and a dropout without a seed has no defined mask.
  if (dropout.has_value() != static_cast<bool>(getSeed()) ||
      dropout.has_value() != static_cast<bool>(getOffset()))
    return emitOpError("seed and offset must be present exactly when dropout "
                       "is");
  if (dropout)
    return verifyDropoutProbability(*this, "dropout",
                                    dropout->convertToDouble());
  return success();
}

double AttentionOp::getEffectiveScale() {
  if (std::optional<APFloat> scale = getScale())
    return scale->convertToDouble();
  auto q = cast<RankedTensorType>(getQ().getType());
  return 1.0 / std::sqrt(static_cast<double>(q.getShape().back()));
}

Value AttentionOp::buildScores(OpBuilder &b) {
  Location loc = getLoc();
  auto qType = cast<RankedTensorType>(getQ().getType());
  auto kType = cast<RankedTensorType>(getK().getType());
  Type accType = accumulationType(qType.getElementType());
  int64_t rank = qType.getRank();
  int64_t t = qType.getDimSize(rank - 2), s = kType.getDimSize(rank - 2);
  SmallVector<int64_t> shape(qType.getShape().drop_back(2));
  shape.append({t, s});
  auto scoresType = RankedTensorType::get(shape, accType);
  auto scalar = [&](double value) -> Value {
    auto type = RankedTensorType::get({}, accType);
    return b.create<ConstantOp>(
        loc, DenseElementsAttr::get(
                 type, b.getFloatAttr(accType, value).getValue()));
  };
  double inf = std::numeric_limits<double>::infinity();

  Value scores = b.create<MatmulOp>(loc, scoresType, getQ(), getK(),
                                    /*transpose_a=*/false,
                                    /*transpose_b=*/true);
  scores = b.create<MulOp>(loc, scoresType, scores,
                           scalar(getEffectiveScale()));
  if (getCausal()) {
    auto indexType = RankedTensorType::get({t, s}, b.getI32Type());
    Value row = b.create<IotaOp>(loc, indexType, /*dim=*/0);
    Value col = b.create<IotaOp>(loc, indexType, /*dim=*/1);
    Value visible = b.create<CompareOp>(
        loc, RankedTensorType::get({t, s}, b.getI1Type()),
        CompareDirection::le, col, row);
    scores = b.create<SelectOp>(loc, scoresType, visible, scores,
                                scalar(-inf));
  }
  if (Value mask = getMask()) {
    auto maskType = cast<RankedTensorType>(mask.getType());
    if (maskType.getElementType().isInteger(1)) {
      scores = b.create<SelectOp>(loc, scoresType, mask, scores, scalar(-inf));
    } else {
      if (maskType.getElementType() != accType)
        mask = b.create<ConvertOp>(
            loc, RankedTensorType::get(maskType.getShape(), accType), mask);
      scores = b.create<AddOp>(loc, scoresType, scores, mask);
    }
  }
  return scores;
}

KernelRole AttentionOp::getKernelRole() { return KernelRole::Composite; }

//===----------------------------------------------------------------------===//
// CrossEntropyOp
//===----------------------------------------------------------------------===//

LogicalResult
CrossEntropyOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                 Adaptor adaptor,
                                 SmallVectorImpl<Type> &inferred) {
  auto logits = dyn_cast<RankedTensorType>(adaptor.getLogits().getType());
  if (!logits)
    return emitOptionalError(loc, "expected ranked logits");
  // The loss is returned in the precision it is accumulated in.
  inferred.push_back(
      RankedTensorType::get({}, accumulationType(logits.getElementType())));
  return success();
}

LogicalResult CrossEntropyOp::verify() {
  auto logits = cast<RankedTensorType>(getLogits().getType());
  auto labels = cast<RankedTensorType>(getLabels().getType());
  if (labels.getDimSize(0) != logits.getDimSize(0))
    return emitOpError() << "labels length " << labels.getDimSize(0)
                         << " must equal the number of logits rows "
                         << logits.getDimSize(0);
  double smoothing = getLabelSmoothing().convertToDouble();
  if (!(smoothing >= 0.0 && smoothing <= 1.0))
    return emitOpError() << "label_smoothing must be in [0, 1], got "
                         << smoothing;
  // Kernels compare labels with ignore_index in the labels' width; a value
  // that does not fit would silently truncate to a valid class.
  unsigned width = labels.getElementType().getIntOrFloatBitWidth();
  int64_t ignoreIndex = getIgnoreIndex();
  if (!llvm::isIntN(width, ignoreIndex))
    return emitOpError() << "ignore_index " << ignoreIndex
                         << " does not fit the labels' element type "
                         << labels.getElementType();
  return success();
}

KernelRole CrossEntropyOp::getKernelRole() { return KernelRole::RowReduction; }
