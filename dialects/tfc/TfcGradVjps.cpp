//===- TfcGradVjps.cpp - VJPs of the named backward ops -------------------===//
//
// Second-order derivatives: the VJPs of the backward ops of TfcGradOps.td,
// so a gradient taken inside a model's forward (a gradient penalty, a PINN
// residual, functorch's grad / jacrev / hessian) can be differentiated again
// by the training step. Each backward op is linear in its upstream gradient
// `dy`, so dy's cotangent is the same backward op applied to the incoming
// cotangent `c`; the cotangent of the forward value it reads (x, or the
// forward's result y) holds the op's second derivative, written here and
// nowhere else. Math runs in accumulationType (as the ops themselves do) and
// each cotangent is rounded once to its operand's type.
//
//===----------------------------------------------------------------------===//

#include "dialects/tfc/TfcVjps.h"

#include "dialects/tfc/TfcShapeUtils.h"

#include <cmath>

using namespace mlir;
using namespace mlir::tfc;

namespace {

using Cotangents = FailureOr<SmallVector<Value>>;

/// `value` (accumulationType) rounded to `like`'s element type.
Value narrowed(VjpBuilder &v, Value value, Value like) {
  return v.convert(value, tensorTypeOf(like).getElementType());
}

/// sum(x) over `dim`, kept as a size-1 dim.
Value rowSum(VjpBuilder &v, Value x, int64_t dim) {
  return v.sumKeepDims(x, {dim});
}

Cotangents vjp(EmbeddingGradOp op, VjpBuilder &v, ArrayRef<Value> cots) {
  Value c = cots[0];
  // Linear in dy: row i of dy lands in table row ids[i], so its cotangent
  // is that row of the table's cotangent, an embedding lookup (the
  // frontend's scatter_add / index_add use it in a forward; their ids are
  // in range, as torch requires).
  Value dy = v.builder().create<EmbeddingOp>(v.location(), op.getDy().getType(),
                                             c, op.getIds());
  return SmallVector<Value>{dy, Value()};
}

Cotangents vjp(SoftmaxGradOp op, VjpBuilder &v, ArrayRef<Value> cots) {
  Value c = cots[0];
  // dx = y (dy - s), s = sum(dy y). dy's cotangent is y (c - sum(c y)),
  // softmax_grad(c, y) itself; y's is c (dy - s) - dy sum(c y).
  int64_t dim = *normalizeDim(op.getDim(), tensorTypeOf(op.getY()).getRank());
  Value dyCot = v.builder().create<SoftmaxGradOp>(
      v.location(), op.getType(), c, op.getY(), op.getDimAttr());
  Value cw = v.widen(c), dy = v.widen(op.getDy()), y = v.widen(op.getY());
  Value s = rowSum(v, v.mul(dy, y), dim);
  Value t = rowSum(v, v.mul(cw, y), dim);
  Value yCot = v.sub(v.mul(cw, v.sub(dy, s)), v.mul(dy, t));
  return SmallVector<Value>{dyCot, narrowed(v, yCot, op.getY())};
}

Cotangents vjp(LogSoftmaxGradOp op, VjpBuilder &v, ArrayRef<Value> cots) {
  Value c = cots[0];
  // dx = dy - exp(y) sum(dy). dy's cotangent is c - sum(c exp(y)); y's is
  // -c exp(y) sum(dy).
  int64_t dim = *normalizeDim(op.getDim(), tensorTypeOf(op.getY()).getRank());
  Value cw = v.widen(c), dy = v.widen(op.getDy());
  Value e = v.unary<ExpOp>(v.widen(op.getY()));
  Value ce = v.mul(cw, e);
  Value dyCot = v.sub(cw, rowSum(v, ce, dim));
  Value yCot = v.neg(v.mul(ce, rowSum(v, dy, dim)));
  return SmallVector<Value>{narrowed(v, dyCot, op.getDy()),
                            narrowed(v, yCot, op.getY())};
}

/// gelu''(x) for `approximate` (x in accumulationType):
///   none: phi(x) (2 - x^2), phi the standard normal density;
///   tanh: (1 - t^2) (u' - x t u'^2 + x u'' / 2), with
///         u = sqrt(2/pi) (x + k x^3), t = tanh(u), k = 0.044715,
///         u' = sqrt(2/pi) (1 + 3 k x^2), u'' = 6 k sqrt(2/pi) x.
Value geluSecondDerivative(VjpBuilder &v, Value x,
                           GeluApproximation approximate) {
  Type t = tensorTypeOf(x).getElementType();
  auto k = [&](double value) { return v.scalar(t, value); };
  Value x2 = v.mul(x, x);
  if (approximate == GeluApproximation::none) {
    Value phi = v.mul(v.unary<ExpOp>(v.mul(x2, k(-0.5))),
                      k(1.0 / std::sqrt(2.0 * M_PI)));
    return v.mul(phi, v.sub(k(2.0), x2));
  }
  const double kappa = 0.044715, c = std::sqrt(2.0 / M_PI);
  Value u = v.mul(k(c), v.add(x, v.mul(k(kappa), v.mul(x2, x))));
  Value th = v.unary<TanhOp>(u);
  Value du = v.mul(k(c), v.add(k(1.0), v.mul(k(3.0 * kappa), x2)));
  Value ddu = v.mul(k(6.0 * kappa * c), x);
  Value inner = v.add(v.sub(du, v.mul(v.mul(x, th), v.mul(du, du))),
                      v.mul(v.mul(x, ddu), k(0.5)));
  return v.mul(v.sub(k(1.0), v.mul(th, th)), inner);
}

Cotangents vjp(GeluGradOp op, VjpBuilder &v, ArrayRef<Value> cots) {
  Value c = cots[0];
  // dx = dy gelu'(x): dy's cotangent is gelu_grad(c, x), x's c dy gelu''(x).
  Value dyCot = v.builder().create<GeluGradOp>(
      v.location(), op.getType(), c, op.getX(), op.getApproximateAttr());
  Value x = v.widen(op.getX());
  Value xCot = v.mul(v.mul(v.widen(c), v.widen(op.getDy())),
                     geluSecondDerivative(v, x, op.getApproximate()));
  return SmallVector<Value>{dyCot, narrowed(v, xCot, op.getX())};
}

Cotangents vjp(SiluGradOp op, VjpBuilder &v, ArrayRef<Value> cots) {
  Value c = cots[0];
  // dx = dy silu'(x), silu'(x) = s (1 + x (1 - s)) with s = sigmoid(x):
  // dy's cotangent is silu_grad(c, x), x's c dy silu''(x), where
  // silu''(x) = s (1 - s) (2 + x (1 - 2 s)).
  Value dyCot = v.builder().create<SiluGradOp>(v.location(), op.getType(), c,
                                               op.getX());
  Value x = v.widen(op.getX());
  Type t = tensorTypeOf(x).getElementType();
  Value one = v.scalar(t, 1.0);
  Value s = v.unary<SigmoidOp>(x);
  Value second = v.mul(
      v.mul(s, v.sub(one, s)),
      v.add(v.scalar(t, 2.0),
            v.mul(x, v.sub(one, v.mul(v.scalar(t, 2.0), s)))));
  Value xCot = v.mul(v.mul(v.widen(c), v.widen(op.getDy())), second);
  return SmallVector<Value>{dyCot, narrowed(v, xCot, op.getX())};
}

/// `sum += term`, where a null sum is zero.
void accumulate(VjpBuilder &v, Value &sum, Value term) {
  sum = sum ? v.add(sum, term) : term;
}

Cotangents vjp(LayerNormGradOp op, VjpBuilder &v, ArrayRef<Value> cots) {
  // The op, over each row's N normalized elements, with xhat = (x - mean)
  // rstd, g = dy weight (dy without weight), a = mean(g), b = mean(g xhat):
  //   dx = rstd (g - a - xhat b),  dweight = sum(dy xhat),  dbias = sum(dy)
  // (sums over the rows). mean and rstd are operands like any other: their
  // cotangents flow on to tfc.layer_norm's statistics, whose VJP turns them
  // into x's. With c, p, q the cotangents of dx, dweight, dbias and the
  // row means m1 = mean(c), m2 = mean(c xhat):
  //   g:    rstd (c - m1 - xhat m2)
  //   xhat: -rstd (b c + g m2) + p dy
  //   rstd: sum over the row of c (g - a - xhat b)
  // then dy gets g's times weight, plus p xhat + q; weight gets the rows'
  // sum of g's times dy; x gets xhat's times rstd, mean minus the row sum
  // of that, and rstd adds the row sum of xhat's times (x - mean).
  Value c = cots[0];
  Value p = cots.size() > 1 ? cots[1] : Value();
  Value q = cots.size() > 2 ? cots[2] : Value();
  auto xType = tensorTypeOf(op.getX());
  int64_t rank = xType.getRank(), normalized = op.getNormalizedRank();
  SmallVector<int64_t> rowDims;
  int64_t count = 1;
  for (int64_t d = rank - normalized; d < rank; ++d) {
    rowDims.push_back(d);
    count *= xType.getDimSize(d);
  }
  Type acc = accumulationType(xType.getElementType());
  Value invCount = v.scalar(acc, 1.0 / double(count));
  auto rowMean = [&](Value x) { return v.mul(v.sumKeepDims(x, rowDims), invCount); };

  Value dy = v.widen(op.getDy()), x = v.widen(op.getX());
  Value mean = v.widen(op.getMean()), rstd = v.widen(op.getRstd());
  Value weight = op.getWeight() ? v.widen(op.getWeight()) : Value();
  Value centered = v.sub(x, mean);
  Value xhat = v.mul(centered, rstd);
  Value g = weight ? v.mul(dy, weight) : dy;

  Value gCot, xhatCot, rstdCot, dyCot;
  if (c) {
    c = v.widen(c);
    Value m1 = rowMean(c), m2 = rowMean(v.mul(c, xhat));
    Value a = rowMean(g), b = rowMean(v.mul(g, xhat));
    gCot = v.mul(rstd, v.sub(v.sub(c, m1), v.mul(xhat, m2)));
    xhatCot = v.neg(v.mul(rstd, v.add(v.mul(b, c), v.mul(g, m2))));
    rstdCot = v.sumKeepDims(
        v.mul(c, v.sub(v.sub(g, a), v.mul(xhat, b))), rowDims);
    dyCot = weight ? v.mul(gCot, weight) : gCot;
  }
  if (p) {
    p = v.widen(p);
    accumulate(v, dyCot, v.mul(p, xhat));
    accumulate(v, xhatCot, v.mul(p, dy));
  }
  if (q)
    accumulate(v, dyCot, v.builder().create<BroadcastToOp>(
                             v.location(), tensorTypeOf(dy), v.widen(q)));

  Value xCot, meanCot, weightCot;
  if (xhatCot) {
    xCot = v.mul(xhatCot, rstd);
    meanCot = v.neg(v.sumKeepDims(xCot, rowDims));
    accumulate(v, rstdCot, v.sumKeepDims(v.mul(xhatCot, centered), rowDims));
  }
  if (gCot && weight)
    weightCot = v.sumToShape(v.mul(gCot, dy), tensorTypeOf(weight));

  auto cast = [&](Value cot, Value operand) {
    return cot ? narrowed(v, cot, operand) : Value();
  };
  SmallVector<Value> result{cast(dyCot, op.getDy()), cast(xCot, op.getX()),
                            cast(meanCot, op.getMean()),
                            cast(rstdCot, op.getRstd())};
  if (op.getWeight())
    result.push_back(cast(weightCot, op.getWeight()));
  return result;
}

/// The VJP of a backward op: its vjp() above.
struct GradRule {
  template <typename OpT>
  Cotangents operator()(OpT op, VjpBuilder &v, ArrayRef<Value> cots) const {
    return vjp(op, v, cots);
  }
};

} // namespace

void mlir::tfc::detail::attachGradVjps(MLIRContext *context) {
  attachVjpModels<GradRule, EmbeddingGradOp, SoftmaxGradOp, LogSoftmaxGradOp,
                  GeluGradOp, SiluGradOp, LayerNormGradOp>(context);
}
