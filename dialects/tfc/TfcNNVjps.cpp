//===- TfcNNVjps.cpp - VJPs of the NN and activation ops ------------------===//
//
// The NN ops differentiate through the named backward ops (TfcGradOps.td),
// which reuse what the forward computed (layer_norm's statistics, softmax's
// probabilities) and map onto one kernel each. The statistics results are
// differentiable too (a derivative taken inside the forward reads them). Attention is differentiated
// by recomputing its decomposition at the backward's position (scores and
// probabilities are not kept alive across the whole forward, as a fused
// attention kernel would do) and chaining the VJPs of its parts.
//
//===----------------------------------------------------------------------===//

#include "dialects/tfc/TfcVjps.h"

#include "dialects/tfc/TfcShapeUtils.h"

#include <limits>

using namespace mlir;
using namespace mlir::tfc;

namespace {

using Cotangents = FailureOr<SmallVector<Value>>;

Cotangents vjp(EmbeddingOp op, VjpBuilder &v, ArrayRef<Value> cots) {
  Value table = v.builder().create<EmbeddingGradOp>(
      v.location(), op.getTable().getType(), cots[0], op.getIds());
  return SmallVector<Value>{table, Value()};
}

/// The number of elements in a normalization's row: its last
/// `normalizedRank` dims.
int64_t rowCount(RankedTensorType type, int64_t normalizedRank) {
  int64_t count = 1;
  for (int64_t size : type.getShape().take_back(normalizedRank))
    count *= size;
  return count;
}

/// x's cotangent from those of a normalization's statistics (read by a
/// derivative taken inside the forward, whose backward ops use them), in
/// accumulationType, or null when they have none. Over a row of N
/// elements, d mean / dx = 1 / N and d rstd / dx = -rstd^3 (x - mean) / N
/// (rms_norm: -rstd^3 x / N, `mean` null).
Value statisticsCotangent(VjpBuilder &v, Value x, Value mean, Value rstd,
                          Value meanCot, Value rstdCot, int64_t count) {
  if (!meanCot && !rstdCot)
    return Value();
  Type acc = tensorTypeOf(rstd).getElementType();
  Value invCount = v.scalar(acc, 1.0 / double(count));
  Value sum;
  if (meanCot)
    sum = v.builder().create<BroadcastToOp>(
        v.location(), RankedTensorType::get(tensorTypeOf(x).getShape(), acc),
        v.mul(meanCot, invCount));
  if (rstdCot) {
    Value centered = v.widen(x);
    if (mean)
      centered = v.sub(centered, mean);
    Value cube = v.mul(v.mul(rstd, rstd), rstd);
    Value term = v.neg(v.mul(v.mul(rstdCot, v.mul(cube, invCount)), centered));
    sum = sum ? v.add(sum, term) : term;
  }
  return sum;
}

/// `dx` plus the statistics' part (accumulationType), in x's type.
Value withStatistics(VjpBuilder &v, Value dx, Value statistics, Value x) {
  if (!statistics)
    return dx;
  Value part = v.convert(statistics, tensorTypeOf(x).getElementType());
  return dx ? v.add(dx, part) : part;
}

Cotangents vjp(LayerNormOp op, VjpBuilder &v, ArrayRef<Value> cots) {
  Value dy = cots[0];
  int64_t count = rowCount(tensorTypeOf(op.getX()), op.getNormalizedRank());
  Value statistics = statisticsCotangent(v, op.getX(), op.getMean(),
                                         op.getRstd(), cots[1], cots[2], count);
  if (!dy) {
    SmallVector<Value> result{withStatistics(v, Value(), statistics, op.getX())};
    result.append(op->getNumOperands() - 1, Value());
    return result;
  }
  auto grad = v.builder().create<LayerNormGradOp>(
      v.location(), dy, op.getX(), op.getMean(), op.getRstd(), op.getWeight(),
      op.getNormalizedRankAttr());
  Value dbias;
  if (Value bias = op.getBias()) {
    // Without a weight the grad op returns dx alone: the bias gradient is
    // then the column sum of dy.
    dbias = op.getWeight() ? grad.getDbias()
                           : v.sumToShape(dy, tensorTypeOf(bias));
    dbias = v.convert(dbias, tensorTypeOf(bias).getElementType());
  }
  SmallVector<Value> result{
      withStatistics(v, grad.getDx(), statistics, op.getX())};
  if (op.getWeight())
    result.push_back(grad.getDweight());
  if (op.getBias())
    result.push_back(dbias);
  return result;
}

Cotangents vjp(RmsNormOp op, VjpBuilder &v, ArrayRef<Value> cots) {
  int64_t count = rowCount(tensorTypeOf(op.getX()), op.getNormalizedRank());
  Value statistics = statisticsCotangent(v, op.getX(), Value(), op.getRstd(),
                                         Value(), cots[1], count);
  if (!cots[0]) {
    SmallVector<Value> result{withStatistics(v, Value(), statistics, op.getX())};
    result.append(op->getNumOperands() - 1, Value());
    return result;
  }
  auto grad = v.builder().create<RmsNormGradOp>(
      v.location(), cots[0], op.getX(), op.getRstd(), op.getWeight(),
      op.getNormalizedRankAttr());
  SmallVector<Value> result{
      withStatistics(v, grad.getDx(), statistics, op.getX())};
  if (op.getWeight())
    result.push_back(grad.getDweight());
  return result;
}

Cotangents vjp(SoftmaxOp op, VjpBuilder &v, ArrayRef<Value> cots) {
  return SmallVector<Value>{v.builder().create<SoftmaxGradOp>(
      v.location(), op.getType(), cots[0], op.getResult(), op.getDimAttr())};
}

Cotangents vjp(LogSoftmaxOp op, VjpBuilder &v, ArrayRef<Value> cots) {
  return SmallVector<Value>{v.builder().create<LogSoftmaxGradOp>(
      v.location(), op.getType(), cots[0], op.getResult(), op.getDimAttr())};
}

Cotangents vjp(GeluOp op, VjpBuilder &v, ArrayRef<Value> cots) {
  return SmallVector<Value>{v.builder().create<GeluGradOp>(
      v.location(), op.getType(), cots[0], op.getX(), op.getApproximateAttr())};
}

Cotangents vjp(SiluOp op, VjpBuilder &v, ArrayRef<Value> cots) {
  return SmallVector<Value>{v.builder().create<SiluGradOp>(
      v.location(), op.getType(), cots[0], op.getX())};
}

Cotangents vjp(CrossEntropyOp op, VjpBuilder &v, ArrayRef<Value> cots) {
  Value dlogits = v.builder().create<CrossEntropyGradOp>(
      v.location(), op.getLogits().getType(), cots[0], op.getLogits(),
      op.getLabels(), op.getIgnoreIndexAttr(), op.getLabelSmoothingAttr(),
      op.getReductionAttr());
  return SmallVector<Value>{dlogits, Value()};
}

Cotangents vjp(AttentionOp op, VjpBuilder &v, ArrayRef<Value> cots) {
  // Forward, as --tfc-decompose builds it: s = the masked scores of
  // AttentionOp::buildScores, p = softmax(s) in accumulationType,
  // pd = dropout(p), o = pd v.
  OpBuilder &b = v.builder();
  Location loc = v.location();
  Value q = op.getQ(), k = op.getK(), val = op.getV(), g = cots[0];
  Type elementType = tensorTypeOf(q).getElementType();
  Type accType = accumulationType(elementType);
  Value scores = op.buildScores(b);
  Value scale = v.scalar(accType, op.getEffectiveScale());
  auto scoresType = tensorTypeOf(scores);
  Value probs = b.create<SoftmaxOp>(loc, scoresType, scores,
                                    b.getI64IntegerAttr(-1));
  FloatAttr p = op.getDropoutAttr();
  bool dropout = p && p.getValueAsDouble() != 0.0;
  Value dropped = probs;
  if (dropout)
    dropped = b.create<DropoutOp>(loc, scoresType, probs, op.getSeed(),
                                  op.getOffset(), p);
  dropped = v.convert(dropped, elementType);

  // Backward: dv = pd^T g, dpd = g v^T, dp = dropout(dpd) (linear, same
  // mask), dm = softmax_grad(dp, p) (the masked scores' gradient, zero where
  // masked with -inf since p is zero there), ds = dm * scale, dq = ds k,
  // dk = ds^T q; an additive mask's gradient is dm summed to its shape.
  Value dv = v.matmul(dropped, g, true, false);
  Value dprobs = v.matmul(g, val, false, true, accType);
  if (dropout)
    dprobs = b.create<DropoutOp>(loc, scoresType, dprobs, op.getSeed(),
                                 op.getOffset(), p);
  Value dmasked = b.create<SoftmaxGradOp>(loc, scoresType, dprobs, probs,
                                          b.getI64IntegerAttr(-1));
  Value dscores = v.convert(v.mul(dmasked, scale), elementType);
  Value dq = v.matmul(dscores, k, false, false);
  Value dk = v.matmul(dscores, q, true, false);
  SmallVector<Value> result{dq, dk, dv};
  if (Value mask = op.getMask()) {
    auto maskType = tensorTypeOf(mask);
    result.push_back(maskType.getElementType().isInteger(1)
                         ? Value()
                         : v.convert(v.sumToShape(dmasked, maskType),
                                     maskType.getElementType()));
  }
  if (op.getSeed())
    result.append({Value(), Value()});
  return result;
}

/// The VJP of an NN op: its vjp() above.
struct NNRule {
  template <typename OpT>
  Cotangents operator()(OpT op, VjpBuilder &v, ArrayRef<Value> cots) const {
    return vjp(op, v, cots);
  }
};

} // namespace

void mlir::tfc::detail::attachNNVjps(MLIRContext *context) {
  attachVjpModels<NNRule, EmbeddingOp, LayerNormOp, RmsNormOp, SoftmaxOp,
                  LogSoftmaxOp, GeluOp, SiluOp, CrossEntropyOp, AttentionOp>(context);
}
