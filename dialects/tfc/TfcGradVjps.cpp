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

/// `value` in the accumulation type of its element type.
Value widened(VjpBuilder &v, Value value) {
  return v.convert(value,
                   accumulationType(tensorTypeOf(value).getElementType()));
}

/// `value` (accumulationType) rounded to `like`'s element type.
Value narrowed(VjpBuilder &v, Value value, Value like) {
  return v.convert(value, tensorTypeOf(like).getElementType());
}

template <typename OpT> Value unary(VjpBuilder &v, Value x) {
  return v.builder().create<OpT>(v.location(), x.getType(), x);
}

/// sum(x) over `dim`, kept as a size-1 dim (x in accumulationType).
Value rowSum(VjpBuilder &v, Value x, int64_t dim) {
  auto type = tensorTypeOf(x);
  SmallVector<int64_t> shape(type.getShape());
  shape[dim] = 1;
  OpBuilder &b = v.builder();
  return b.create<ReduceSumOp>(
      v.location(), RankedTensorType::get(shape, type.getElementType()), x,
      b.getDenseI64ArrayAttr({dim}), b.getUnitAttr());
}

Cotangents vjp(EmbeddingGradOp op, VjpBuilder &v, Value c) {
  // Linear in dy: row i of dy lands in table row ids[i], so its cotangent
  // is that row of the table's cotangent, an embedding lookup (the
  // frontend's scatter_add / index_add use it in a forward; their ids are
  // in range, as torch requires).
  Value dy = v.builder().create<EmbeddingOp>(v.location(), op.getDy().getType(),
                                             c, op.getIds());
  return SmallVector<Value>{dy, Value()};
}

Cotangents vjp(SoftmaxGradOp op, VjpBuilder &v, Value c) {
  // dx = y (dy - s), s = sum(dy y). dy's cotangent is y (c - sum(c y)),
  // softmax_grad(c, y) itself; y's is c (dy - s) - dy sum(c y).
  int64_t dim = *normalizeDim(op.getDim(), tensorTypeOf(op.getY()).getRank());
  Value dyCot = v.builder().create<SoftmaxGradOp>(
      v.location(), op.getType(), c, op.getY(), op.getDimAttr());
  Value cw = widened(v, c), dy = widened(v, op.getDy()), y = widened(v, op.getY());
  Value s = rowSum(v, v.mul(dy, y), dim);
  Value t = rowSum(v, v.mul(cw, y), dim);
  Value yCot = v.sub(v.mul(cw, v.sub(dy, s)), v.mul(dy, t));
  return SmallVector<Value>{dyCot, narrowed(v, yCot, op.getY())};
}

Cotangents vjp(LogSoftmaxGradOp op, VjpBuilder &v, Value c) {
  // dx = dy - exp(y) sum(dy). dy's cotangent is c - sum(c exp(y)); y's is
  // -c exp(y) sum(dy).
  int64_t dim = *normalizeDim(op.getDim(), tensorTypeOf(op.getY()).getRank());
  Value cw = widened(v, c), dy = widened(v, op.getDy());
  Value e = unary<ExpOp>(v, widened(v, op.getY()));
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
    Value phi = v.mul(unary<ExpOp>(v, v.mul(x2, k(-0.5))),
                      k(1.0 / std::sqrt(2.0 * M_PI)));
    return v.mul(phi, v.sub(k(2.0), x2));
  }
  const double kappa = 0.044715, c = std::sqrt(2.0 / M_PI);
  Value u = v.mul(k(c), v.add(x, v.mul(k(kappa), v.mul(x2, x))));
  Value th = unary<TanhOp>(v, u);
  Value du = v.mul(k(c), v.add(k(1.0), v.mul(k(3.0 * kappa), x2)));
  Value ddu = v.mul(k(6.0 * kappa * c), x);
  Value inner = v.add(v.sub(du, v.mul(v.mul(x, th), v.mul(du, du))),
                      v.mul(v.mul(x, ddu), k(0.5)));
  return v.mul(v.sub(k(1.0), v.mul(th, th)), inner);
}

Cotangents vjp(GeluGradOp op, VjpBuilder &v, Value c) {
  // dx = dy gelu'(x): dy's cotangent is gelu_grad(c, x), x's c dy gelu''(x).
  Value dyCot = v.builder().create<GeluGradOp>(
      v.location(), op.getType(), c, op.getX(), op.getApproximateAttr());
  Value x = widened(v, op.getX());
  Value xCot = v.mul(v.mul(widened(v, c), widened(v, op.getDy())),
                     geluSecondDerivative(v, x, op.getApproximate()));
  return SmallVector<Value>{dyCot, narrowed(v, xCot, op.getX())};
}

Cotangents vjp(SiluGradOp op, VjpBuilder &v, Value c) {
  // dx = dy silu'(x), silu'(x) = s (1 + x (1 - s)) with s = sigmoid(x):
  // dy's cotangent is silu_grad(c, x), x's c dy silu''(x), where
  // silu''(x) = s (1 - s) (2 + x (1 - 2 s)).
  Value dyCot = v.builder().create<SiluGradOp>(v.location(), op.getType(), c,
                                               op.getX());
  Value x = widened(v, op.getX());
  Type t = tensorTypeOf(x).getElementType();
  Value one = v.scalar(t, 1.0);
  Value s = unary<SigmoidOp>(v, x);
  Value second = v.mul(
      v.mul(s, v.sub(one, s)),
      v.add(v.scalar(t, 2.0),
            v.mul(x, v.sub(one, v.mul(v.scalar(t, 2.0), s)))));
  Value xCot = v.mul(v.mul(widened(v, c), widened(v, op.getDy())), second);
  return SmallVector<Value>{dyCot, narrowed(v, xCot, op.getX())};
}

/// The external model of one backward op: forwards to its vjp().
template <typename OpT>
struct GradVjp : DifferentiableOpInterface::ExternalModel<GradVjp<OpT>, OpT> {
  FailureOr<SmallVector<Value>>
  buildVjp(Operation *op, OpBuilder &builder,
           ArrayRef<Value> resultCotangents) const {
    VjpBuilder v(builder, op->getLoc());
    return vjp(cast<OpT>(op), v, resultCotangents[0]);
  }
};

template <typename... OpTs> void attach(MLIRContext *context) {
  (OpTs::template attachInterface<GradVjp<OpTs>>(*context), ...);
}

} // namespace

void mlir::tfc::detail::attachGradVjps(MLIRContext *context) {
  attach<EmbeddingGradOp, SoftmaxGradOp, LogSoftmaxGradOp, GeluGradOp,
         SiluGradOp>(context);
}
