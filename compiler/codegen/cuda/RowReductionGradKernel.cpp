//===- RowReductionGradKernel.cpp - backward row-reduction anchors --------===//
//
// The backward ops a row kernel anchors on (softmax_grad, log_softmax_grad,
// layer_norm_grad_input, rms_norm_grad_input, cross_entropy_grad): members
// of RowKernelEmitter (RowKernelEmitter.h), emitted in the same kernel
// skeleton as the forward row reductions.
//
//===----------------------------------------------------------------------===//

#include "compiler/codegen/cuda/RowKernelEmitter.h"

#include "dialects/tfc/TfcShapeUtils.h"

#include "llvm/ADT/TypeSwitch.h"

#include <cmath>
#include <fmt/format.h>

using namespace mlir;
using namespace mlir::tfc;
using namespace mlir::tfc::cuda;

//===----------------------------------------------------------------------===//
// Backward row ops
//===----------------------------------------------------------------------===//
//
// Each computes one or two row sums (and reuses the forward's statistics),
// then every element of dx from its operands at the element and those sums:
//   softmax_grad      s = sum(dy * y)            dx = y * (dy - s)
//   log_softmax_grad  s = sum(dy)                dx = dy - exp(y) * s
//   layer_norm_grad_input, with g = dy * weight, xhat = (x - mean) * rstd:
//                     a = mean(g), b = mean(g * xhat)
//                     dx = rstd * (g - a - xhat * b)       (rms: no a, no mean)
//   cross_entropy_grad  max and sum(exp) of the logits row (shared with a
//                     cross_entropy of the same logits), then
//                     dx = scale * (p - e / C - (1 - e) [c == label])
// with stats[op] holding the row sums' variables.

FailureOr<std::string> RowKernelEmitter::reduceWith(
    Type accType, ArrayRef<Value> ahead,
    llvm::function_ref<FailureOr<std::string>(const IndexExpr &)> term) {
  std::string type = computeType(accType);
  std::string acc = w.fresh("acc");
  w.line(fmt::format("{} {} = {};", type, acc, floatLiteral(accType, 0.0)));
  FailureOr<IndexExpr> e = openLanes(/*withArrays=*/true, ahead);
  if (failed(e))
    return failure();
  FailureOr<std::string> t = term(*e);
  if (failed(t))
    return failure();
  w.line(fmt::format("{0} = {0} + ({1});", acc, *t));
  closeLanes();
  w.line(allReduce(acc, Combine::Sum, type));
  return acc;
}

LogicalResult RowKernelEmitter::emitLabelCounts() {
  for (Operation *op : anchors) {
    auto ce = dyn_cast<CrossEntropyGradOp>(op);
    if (!ce || ce.getReduction() != LossReduction::mean)
      continue;
    Value labels = ce.getLabels();
    int64_t n = shapeOf(labels)[0];
    Type acc = accumulationType(elementTypeOf(ce.getLogits()));
    std::string type = computeType(acc);
    std::string count = w.fresh("count");
    w.line(fmt::format("{} {} = {};", type, count, floatLiteral(acc, 0.0)));
    std::string i = w.fresh("i");
    w.push(fmt::format("for ({0} {1} = {2}; {1} < {3}; {1} += {4}) {{",
                       info.indexType, i, laneId, n, warpPerRow ? 32 : threads),
           "}");
    int var = w.addVar(i, n, w.depth());
    FailureOr<CExpr> label =
        ve->emit(labels, {IndexExpr::variable(w.vars(), var)});
    if (failed(label))
      return failure();
    w.line(fmt::format("{0} = {0} + ({1} != {2}LL ? {3} : {4});", count,
                       label->code, static_cast<int64_t>(ce.getIgnoreIndex()),
                       floatLiteral(acc, 1.0), floatLiteral(acc, 0.0)));
    w.pop();
    w.line(allReduce(count, Combine::Sum, type));
    labelCounts[op] = count;
  }
  return success();
}

LogicalResult RowKernelEmitter::normGradTerms(Operation *op,
                                              ArrayRef<IndexExpr> coords,
                                              std::string &g, std::string &xhat,
                                              int &level) {
  bool ln = isa<LayerNormGradInputOp>(op);
  Value dy = op->getOperand(0), x = op->getOperand(1);
  Value weight = ln ? cast<LayerNormGradInputOp>(op).getWeight()
                    : cast<RmsNormGradInputOp>(op).getWeight();
  FailureOr<CExpr> dyv = ve->emit(dy, coords), xv = failure();
  if (failed(dyv) || failed(xv = ve->emit(x, coords)))
    return failure();
  level = std::max({level, dyv->level, xv->level});
  g = dyv->code;
  if (weight) {
    FailureOr<CExpr> wv =
        ve->emit(weight, ValueEmitter::broadcastCoords(coords, shapeOf(x),
                                                       shapeOf(weight)));
    if (failed(wv))
      return failure();
    level = std::max(level, wv->level);
    g = fmt::format("({} * {})", g, wv->code);
  }
  ArrayRef<std::string> s = stats[op];
  xhat = ln ? fmt::format("(({} - {}) * {})", xv->code, s[2], s[3])
            : fmt::format("({} * {})", xv->code, s[3]);
  return success();
}

LogicalResult RowKernelEmitter::emitGradAnchor(Operation *op) {
  IndexExpr row = IndexExpr::variable(w.vars(), rowVar);
  Value x = op->getOperand(1); // y, x or the logits: the row-shaped operand
  Type acc = accumulationType(elementTypeOf(x));
  std::string len = floatLiteral(acc, (double)length);
  auto valueAt = [&](Value v, const IndexExpr &e) {
    return ve->emit(v, ve->coordsOf(e, shapeOf(v)));
  };

  if (isa<SoftmaxGradOp, LogSoftmaxGradOp>(op)) {
    Value dy = op->getOperand(0);
    bool log = isa<LogSoftmaxGradOp>(op);
    // Each of dy and x is read in the passes that recompute the other: an
    // array of one must not be live across the other's slow-path calls.
    if (failed(materialize(dy, !callsSlowPaths(x))) ||
        failed(materialize(x, !callsSlowPaths(dy))))
      return failure();
    FailureOr<std::string> s = reduceWith(
        acc, rowShapedOperands(op),
        [&](const IndexExpr &e) -> FailureOr<std::string> {
          FailureOr<CExpr> d = valueAt(dy, e);
          if (failed(d) || log)
            return failed(d) ? FailureOr<std::string>(failure())
                             : FailureOr<std::string>(d->code);
          FailureOr<CExpr> p = valueAt(x, e);
          if (failed(p))
            return failure();
          return d->code + " * " + p->code;
        });
    if (failed(s))
      return failure();
    stats[op] = {*s};
    return success();
  }

  if (isa<LayerNormGradInputOp, RmsNormGradInputOp>(op)) {
    bool ln = isa<LayerNormGradInputOp>(op);
    Value dy = op->getOperand(0);
    if (failed(materialize(dy, !callsSlowPaths(x))) ||
        failed(materialize(x, !callsSlowPaths(dy))))
      return failure();
    // The forward's statistics: one value per row.
    std::string mu;
    if (ln) {
      FailureOr<CExpr> m = valueAt(op->getOperand(2), row);
      if (failed(m))
        return failure();
      mu = m->code;
    }
    FailureOr<CExpr> rs = valueAt(op->getOperand(ln ? 3 : 2), row);
    if (failed(rs))
      return failure();
    stats[op] = {"", "", mu, rs->code};
    auto sumOf = [&](bool withXhat) {
      return reduceWith(acc, rowShapedOperands(op),
                        [&](const IndexExpr &e) -> FailureOr<std::string> {
        std::string g, xhat;
        int level = 0;
        if (failed(
                normGradTerms(op, ve->coordsOf(e, shapeOf(x)), g, xhat, level)))
          return failure();
        return withXhat ? g + " * " + xhat : g;
      });
    };
    if (ln) {
      FailureOr<std::string> a = sumOf(false);
      if (failed(a))
        return failure();
      stats[op][0] = rowStat(acc, *a + " / " + len).code;
    }
    FailureOr<std::string> b = sumOf(true);
    if (failed(b))
      return failure();
    stats[op][1] = rowStat(acc, *b + " / " + len).code;
    return success();
  }

  auto ce = cast<CrossEntropyGradOp>(op);
  if (failed(materialize(x, true)))
    return failure();
  // The forward's statistics when a cross_entropy of the same logits is in
  // the kernel.
  auto ms = softmaxStatistics(x, acc);
  if (failed(ms))
    return failure();
  const std::string *m = &ms->first, *s = &ms->second;
  FailureOr<CExpr> label = ve->emit(ce.getLabels(), {row});
  FailureOr<CExpr> dloss = failure();
  if (failed(label) || failed(dloss = ve->emit(ce.getDloss(), {})))
    return failure();
  int64_t classes = shapeOf(x)[1];
  std::string scale = dloss->code;
  if (ce.getReduction() == LossReduction::mean)
    scale = fmt::format("{} / {}", scale, labelCounts.lookup(op));
  // Ignored rows get zeros (even when every row is ignored); a label
  // outside [0, C) that is not ignored has no defined gradient (PyTorch
  // raises): its row becomes NaN.
  CExpr rowScale = rowStat(
      acc, fmt::format("{0} == {1}LL ? {2} : (({0} >= 0 && {0} < {3}) ? "
                       "({4}) : {5})",
                       label->code, static_cast<int64_t>(ce.getIgnoreIndex()),
                       floatLiteral(acc, 0.0), classes, scale,
                       floatLiteral(acc, NAN)));
  CExpr inv = rowStat(acc, fmt::format("{} / {}", floatLiteral(acc, 1.0), *s));
  stats[op] = {*m, inv.code, label->code, rowScale.code};
  return success();
}

FailureOr<CExpr>
RowKernelEmitter::gradAnchorResult(OpResult result,
                                   ArrayRef<IndexExpr> coords) {
  Operation *op = result.getOwner();
  Value x = op->getOperand(1);
  if (!isCurrentRow(x, coords)) {
    op->emitError() << "codegen: a result of '" << op->getName()
                    << "' is read at an index outside the row being reduced";
    return failure();
  }
  Type et = elementTypeOf(result);
  Type acc = accumulationType(et);
  ArrayRef<std::string> s = stats[op];
  int level = std::max(rowLevel, linearize(coords, shapeOf(x)).level());
  std::string expr;
  if (isa<SoftmaxGradOp, LogSoftmaxGradOp>(op)) {
    FailureOr<CExpr> dy = ve->emit(op->getOperand(0), coords);
    FailureOr<CExpr> y = failure();
    if (failed(dy) || failed(y = ve->emit(x, coords)))
      return failure();
    level = std::max({level, dy->level, y->level});
    expr = isa<SoftmaxGradOp>(op)
               ? fmt::format("{} * ({} - {})", y->code, dy->code, s[0])
               : fmt::format("{} - {}({}) * {}", dy->code,
                             acc.isF64() ? "exp" : "expf", y->code, s[0]);
  } else if (isa<LayerNormGradInputOp, RmsNormGradInputOp>(op)) {
    std::string g, xhat;
    if (failed(normGradTerms(op, coords, g, xhat, level)))
      return failure();
    expr =
        isa<LayerNormGradInputOp>(op)
            ? fmt::format("{} * ({} - {} - {} * {})", s[3], g, s[0], xhat, s[1])
            : fmt::format("{} * ({} - {} * {})", s[3], g, xhat, s[1]);
  } else {
    auto ce = cast<CrossEntropyGradOp>(op);
    FailureOr<CExpr> logit = ve->emit(x, coords);
    if (failed(logit))
      return failure();
    level = std::max(level, logit->level);
    double e = ce.getLabelSmoothing().convertToDouble();
    int64_t classes = shapeOf(x)[1];
    expr = fmt::format(
        "{0} * ({1}({2} - {3}) * {4} - {5} - ({6} == {7} ? {8} : {9}))", s[3],
        acc.isF64() ? "exp" : "expf", logit->code, s[0], s[1],
        floatLiteral(acc, e / classes), coords[1].render(), s[2],
        floatLiteral(acc, 1.0 - e), floatLiteral(acc, 0.0));
  }
  return w.declare(level, computeType(et), roundToStorage(et, expr));
}
