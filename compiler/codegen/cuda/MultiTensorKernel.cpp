//===- MultiTensorKernel.cpp - multi-tensor (optimizer) kernels -----------===//
//
// One launch updates every tensor of the region. Outputs are grouped by
// shape (an optimizer op's parameter, moments and buffer share one) and each
// group gets a grid-stride loop over its elements, one after the other in
// the same kernel, so all threads of the launch sweep each tensor in turn.
// Runtime scalars (lr, step) and the bias corrections derived from them are
// hoisted before the first loop.
//
// The optimizer ops are the anchors: the value emitter asks anchorHook for
// their results, which emits the whole update of one element (all results
// at once, memoized) with the operation order of torch.optim's single-tensor
// step; `x.add_(y, alpha=a)` is written fma(y, a, x) as ATen's vectorized CPU
// kernel computes it. Scalars torch forms from Python floats are formed in
// double and rounded to the compute type once, as torch does. The Adam
// formula (emitAdamScalars / emitAdamElement) is shared with the
// block_quantized kernel of adamw8bit.
//
//===----------------------------------------------------------------------===//

#include "compiler/codegen/cuda/KernelEmitters.h"
#include "compiler/codegen/cuda/ValueEmitter.h"

#include "dialects/tfc/TfcKernelRules.h"
#include "dialects/tfc/TfcOps.h"
#include "dialects/tfc/TfcShapeUtils.h"

#include "llvm/ADT/TypeSwitch.h"

#include <cmath>
#include <fmt/format.h>
#include <map>

using namespace mlir;
using namespace mlir::tfc;
using namespace mlir::tfc::cuda;

FailureOr<AdamScalars>
mlir::tfc::cuda::emitAdamScalars(ValueEmitter &ve, const AdamParams &params,
                                 Value lrValue, Value stepValue,
                                 const AdamScalars *shared) {
  KernelWriter &w = ve.writer();
  Type ct = params.computeType;
  std::string t = computeType(ct);
  auto dbl = [&](double v) {
    return floatLiteral(Float64Type::get(ct.getContext()), v);
  };
  auto decayFactor = [&](const CExpr &lr) {
    return w.declare(lr.level, t,
                     fmt::format("({})(1.0 - {} * {})", t, lr.code,
                                 dbl(params.weightDecay)),
                     "s");
  };
  if (shared) {
    AdamScalars s = *shared;
    s.decay = params.decoupled ? decayFactor(s.lr) : CExpr();
    return s;
  }
  // lr and step are 0-d, so these land before the element loops.
  FailureOr<CExpr> lr = ve.emit(lrValue, {});
  FailureOr<CExpr> step = ve.emit(stepValue, {});
  if (failed(lr) || failed(step))
    return failure();
  int sl = std::max(lr->level, step->level);
  AdamScalars s;
  s.lr =
      w.declare(lr->level, "double", fmt::format("(double){}", lr->code), "lr");
  CExpr bc1 = w.declare(
      sl, "double",
      fmt::format("1.0 - pow({}, (double){})", dbl(params.beta1), step->code),
      "bc");
  CExpr bc2 = w.declare(
      sl, "double",
      fmt::format("1.0 - pow({}, (double){})", dbl(params.beta2), step->code),
      "bc");
  s.negStep = w.declare(
      sl, t, fmt::format("({})(-({} / {}))", t, s.lr.code, bc1.code), "s");
  s.bc2Sqrt = w.declare(sl, t, fmt::format("({})sqrt({})", t, bc2.code), "s");
  if (params.decoupled) // the factor of p.mul_(1 - lr * weight_decay)
    s.decay = decayFactor(s.lr);
  return s;
}

AdamElement mlir::tfc::cuda::emitAdamElement(KernelWriter &w,
                                             const AdamParams &params,
                                             const AdamScalars &s,
                                             const CExpr &p, const CExpr &g,
                                             const CExpr &m, const CExpr &v) {
  Type ct = params.computeType;
  std::string t = computeType(ct);
  auto f = [&](double x) { return floatLiteral(ct, x); };
  std::string fmaFn = ct.isF64() ? "fma" : "fmaf";
  std::string sqrtFn = ct.isF64() ? "sqrt" : "sqrtf";
  double beta1 = params.beta1, beta2 = params.beta2;
  int el = std::max({p.level, g.level, m.level, v.level, s.negStep.level});
  std::string pc = p.code, gc = g.code;
  if (params.decoupled) {
    // p.mul_(1 - lr * weight_decay)
    pc = w.declare(el, t, fmt::format("{} * {}", pc, s.decay.code)).code;
  } else if (params.weightDecay != 0.0) {
    // grad = grad.add(param, alpha=weight_decay)
    gc = w.declare(el, t,
                   fmt::format("{}({}, {}, {})", fmaFn, pc,
                               f(params.weightDecay), gc))
             .code;
  }
  AdamElement e;
  // exp_avg.mul_(beta1).add_(grad, alpha=1 - beta1)
  e.expAvg = w.declare(el, t,
                       fmt::format("{}({}, {}, {} * {})", fmaFn, gc,
                                   f(1.0 - beta1), m.code, f(beta1)));
  // exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
  e.expAvgSq = w.declare(el, t,
                         fmt::format("{} * {} + {} * {} * {}", v.code, f(beta2),
                                     f(1.0 - beta2), gc, gc));
  // denom = (exp_avg_sq.sqrt() / bias_correction2_sqrt).add_(eps)
  CExpr denom =
      w.declare(el, t,
                fmt::format("{}({}) / {} + {}", sqrtFn, e.expAvgSq.code,
                            s.bc2Sqrt.code, f(params.eps)));
  // param.addcdiv_(exp_avg, denom, value=-step_size)
  e.param = w.declare(el, t,
                      fmt::format("{} + {} * {} / {}", pc, s.negStep.code,
                                  e.expAvg.code, denom.code));
  return e;
}

namespace {

/// Emits the optimizer updates of one element, memoizing every result.
class OptimizerEmitter {
public:
  OptimizerEmitter(ValueEmitter &ve) : ve(ve), w(ve.writer()) {}

  FailureOr<CExpr> emit(OpResult result, ArrayRef<IndexExpr> coords) {
    Operation *op = result.getOwner();
    FailureOr<SmallVector<CExpr>> values =
        llvm::TypeSwitch<Operation *, FailureOr<SmallVector<CExpr>>>(op)
            .Case<AdamWOp, AdamOp>([&](auto adam) {
              return emitAdam(adam, isa<AdamWOp>(op), coords);
            })
            .Case([&](SgdOp sgd) { return emitSgd(sgd, coords); })
            .Default([&](Operation *other) -> FailureOr<SmallVector<CExpr>> {
              other->emitError()
                  << "codegen: '" << other->getName()
                  << "' cannot be emitted in a multi_tensor kernel";
              return failure();
            });
    if (failed(values))
      return failure();
    // The other results of the op at the same element are known now.
    for (OpResult other : op->getResults())
      if (other != result)
        w.remember(other, ve.keyOf(other, coords),
                   (*values)[other.getResultNumber()]);
    return (*values)[result.getResultNumber()];
  }

private:
  /// Operand `v` at `coords` (or at no coordinates for a 0-d value),
  /// converted to the compute type `ct` of the parameter.
  FailureOr<CExpr> load(Value v, ArrayRef<IndexExpr> coords, Type ct) {
    FailureOr<CExpr> e =
        ve.emit(v, shapeOf(v).empty() ? ArrayRef<IndexExpr>() : coords);
    if (failed(e) || elementTypeOf(v) == ct)
      return e;
    if (computeType(elementTypeOf(v)) == computeType(ct))
      return e; // f16/bf16/f32 all compute in float
    return w.declare(e->level, computeType(ct),
                     fmt::format("({}){}", computeType(ct), e->code));
  }

  /// Compute type of a parameter: float for 16-bit and f32, double for f64.
  static Type computeElementType(Value param) {
    Type et = elementTypeOf(param);
    return et.isF64() ? et : Float32Type::get(et.getContext());
  }

  /// `-grad` under maximize, then the gradient in the compute type.
  FailureOr<CExpr> gradient(Value grad, bool maximize,
                            ArrayRef<IndexExpr> coords, Type ct) {
    FailureOr<CExpr> g = load(grad, coords, ct);
    if (failed(g) || !maximize)
      return g;
    return w.declare(g->level, computeType(ct), "-" + g->code);
  }

  /// Rounds a result to its storage type (f16/bf16 parameters), as every
  /// value of a kernel is held.
  CExpr finish(Value result, const CExpr &value) {
    Type et = elementTypeOf(result);
    if (!et.isF16() && !et.isBF16())
      return value;
    return w.declare(value.level, "float", roundToStorage(et, value.code));
  }

  template <typename AdamOpT>
  FailureOr<SmallVector<CExpr>> emitAdam(AdamOpT op, bool decoupled,
                                         ArrayRef<IndexExpr> coords) {
    Type ct = computeElementType(op.getParam());
    AdamParams params{decoupled,
                      op.getBeta1().convertToDouble(),
                      op.getBeta2().convertToDouble(),
                      op.getEps().convertToDouble(),
                      op.getWeightDecay().convertToDouble(),
                      ct};
    // The updates of one launch share their per-step scalars (bias
    // corrections, -lr / bc1, the decay factor): declared once at the
    // kernel's top level, not once per parameter, which kept one set per
    // parameter live through the loops (and spilled).
    std::string key = fmt::format(
        "{} {} {} {} {} {} {} {}", params.decoupled, params.beta1, params.beta2,
        params.eps, params.weightDecay, computeType(ct),
        op.getLr().getAsOpaquePointer(), op.getStep().getAsOpaquePointer());
    // Another weight-decay group of the same betas, lr and step shares the
    // bias corrections.
    std::string biasKey = fmt::format(
        "{} {} {} {} {}", params.beta1, params.beta2, computeType(ct),
        op.getLr().getAsOpaquePointer(), op.getStep().getAsOpaquePointer());
    auto known = sharedScalars.find(key);
    auto bias = sharedBiasCorrections.find(biasKey);
    FailureOr<AdamScalars> scalars =
        known != sharedScalars.end()
            ? FailureOr<AdamScalars>(known->second)
            : emitAdamScalars(ve, params, op.getLr(), op.getStep(),
                              bias != sharedBiasCorrections.end()
                                  ? &bias->second
                                  : nullptr);
    if (succeeded(scalars)) {
      sharedScalars.try_emplace(key, *scalars);
      sharedBiasCorrections.try_emplace(biasKey, *scalars);
    }
    FailureOr<CExpr> p = load(op.getParam(), coords, ct);
    FailureOr<CExpr> g = gradient(op.getGrad(), op.getMaximize(), coords, ct);
    FailureOr<CExpr> m = load(op.getExpAvg(), coords, ct);
    FailureOr<CExpr> v = load(op.getExpAvgSq(), coords, ct);
    if (failed(scalars) || failed(p) || failed(g) || failed(m) || failed(v))
      return failure();
    AdamElement e = emitAdamElement(w, params, *scalars, *p, *g, *m, *v);
    return SmallVector<CExpr>{finish(op.getParamOut(), e.param),
                              finish(op.getExpAvgOut(), e.expAvg),
                              finish(op.getExpAvgSqOut(), e.expAvgSq)};
  }

  FailureOr<SmallVector<CExpr>> emitSgd(SgdOp op, ArrayRef<IndexExpr> coords) {
    Type ct = computeElementType(op.getParam());
    std::string t = computeType(ct);
    auto f = [&](double v) { return floatLiteral(ct, v); };
    std::string fmaFn = ct.isF64() ? "fma" : "fmaf";
    double momentum = op.getMomentum().convertToDouble();
    double dampening = op.getDampening().convertToDouble();
    double wd = op.getWeightDecay().convertToDouble();

    FailureOr<CExpr> lr = ve.emit(op.getLr(), {});
    FailureOr<CExpr> step = ve.emit(op.getStep(), {});
    FailureOr<CExpr> p = load(op.getParam(), coords, ct);
    FailureOr<CExpr> d = gradient(op.getGrad(), op.getMaximize(), coords, ct);
    if (failed(lr) || failed(step) || failed(p) || failed(d))
      return failure();
    // -lr as torch's alpha=-lr: rounded from double once.
    CExpr negLr = w.declare(lr->level, t,
                            fmt::format("({})(-(double){})", t, lr->code), "s");
    int el = std::max({p->level, d->level, negLr.level, step->level});
    std::string dc = d->code;
    if (wd != 0.0) // d_p = d_p.add(param, alpha=weight_decay)
      dc = w.declare(el, t,
                     fmt::format("{}({}, {}, {})", fmaFn, p->code, f(wd), dc))
               .code;
    SmallVector<CExpr> results;
    CExpr buf2;
    if (Value buffer = op.getMomentumBuffer()) {
      FailureOr<CExpr> buf = load(buffer, coords, ct);
      if (failed(buf))
        return failure();
      el = std::max(el, buf->level);
      // The first step (step == 1) starts the buffer from d_p, as torch's
      // clone; later ones: buf.mul_(momentum).add_(d_p, alpha=1-dampening).
      buf2 = w.declare(el, t,
                       fmt::format("{} == 1LL ? {} : {}({}, {}, {} * {})",
                                   step->code, dc, fmaFn, dc,
                                   f(1.0 - dampening), buf->code, f(momentum)));
      dc = op.getNesterov() ? w.declare(el, t,
                                        fmt::format("{}({}, {}, {})", fmaFn,
                                                    buf2.code, f(momentum), dc))
                                  .code
                            : buf2.code;
    }
    // param.add_(d_p, alpha=-lr)
    CExpr p2 = w.declare(
        el, t, fmt::format("{}({}, {}, {})", fmaFn, dc, negLr.code, p->code));
    results.push_back(finish(op.getParamOut(), p2));
    if (op.getMomentumBuffer())
      results.push_back(finish(op.getMomentumBufferOut(), buf2));
    return results;
  }

  ValueEmitter &ve;
  KernelWriter &w;
  /// Per-step scalars already declared, by what they are computed from.
  std::map<std::string, AdamScalars> sharedScalars;
  /// The same, by betas, lr and step alone (the decay factor aside).
  std::map<std::string, AdamScalars> sharedBiasCorrections;
};

/// After the loops: each block reduces its threads' partial sums (in a
/// fixed tree order) and writes one partial per sum; the last block to
/// finish adds the partials in block order (deterministic whatever the
/// blocks' completion order) and computes the outputs that depend on them.
LogicalResult emitTensorSumStage(KernelInfo &info, KernelWriter &w,
                                 ValueEmitter &ve, ArrayRef<Operation *> sums,
                                 const llvm::DenseSet<Value> &late,
                                 ArrayRef<std::string> accs, int64_t grid) {
  if (sums.empty())
    return success();
  for (auto [n, sum] : llvm::enumerate(sums)) {
    Type acc = accumulationType(elementTypeOf(sum->getOperand(0)));
    std::string t = computeType(acc);
    StringRef op = isa<ReduceMaxOp>(sum) ? "tfc_max_op" : "tfc_sum_op";
    w.global(fmt::format("__device__ {} tfc_partial_sum{}[{}];", t, n, grid));
    w.line(
        fmt::format("__shared__ {} tfc_sum_shm{}[{}];", t, n,
                    info.schedule.getThreads() / 32));
    w.line(fmt::format("{0} = tfc_block_allreduce({0}, {1}(), tfc_sum_shm{2});",
                       accs[n], op, n));
    w.line(fmt::format("if (threadIdx.x == 0) tfc_partial_sum{}[blockIdx.x] = "
                       "{};",
                       n, accs[n]));
  }
  emitLastBlockElection(w);
  w.push("if (tfc_last_block && threadIdx.x == 0) {", "}");
  w.line("__threadfence();");
  for (auto [n, sum] : llvm::enumerate(sums)) {
    Type acc = accumulationType(elementTypeOf(sum->getOperand(0)));
    std::string t = computeType(acc);
    bool max = isa<ReduceMaxOp>(sum);
    std::string total = w.fresh("total");
    w.line(fmt::format("{} {} = __ldcg(&tfc_partial_sum{}[0]);", t, total, n));
    w.line(fmt::format(
        "for (int b = 1; b < {}; ++b) {} = {};", grid, total,
        max ? fmt::format("tfc_max({}, __ldcg(&tfc_partial_sum"
                          "{}[b]))",
                          total, n)
            : wrappingArith(acc, '+', total,
                            fmt::format("__ldcg(&tfc_partial_sum{}[b])", n))));
    std::string value = total;
    if (isa<ReduceMeanOp>(sum))
      value = fmt::format(
          "{} / {}", total,
          floatLiteral(acc, (double)numElements(shapeOf(sum->getOperand(0)))));
    Value r = sum->getResult(0);
    Type et = elementTypeOf(r);
    CExpr result =
        w.declare(w.depth(), computeType(et), roundToStorage(et, value), "sum");
    SmallVector<IndexExpr> zeros(shapeOf(r).size(), IndexExpr::constant(0));
    w.remember(r, ve.keyOf(r, zeros), result);
  }
  for (auto [k, out] : llvm::enumerate(info.outputs)) {
    if (!late.contains(out))
      continue;
    SmallVector<IndexExpr> zeros(shapeOf(out).size(), IndexExpr::constant(0));
    FailureOr<CExpr> v = ve.emit(out, zeros);
    if (failed(v))
      return failure();
    w.line(storeOutput(info, k, "0", v->code));
  }
  // Re-arm the counter for the next launch.
  w.line("tfc_blocks_done = 0u;");
  w.pop();
  return success();
}
} // namespace

FailureOr<CudaKernel> mlir::tfc::cuda::emitMultiTensorKernel(KernelInfo &info) {
  // Whole-tensor sums (a gradient norm's sums of squares, an inf/NaN check)
  // and what is computed from them exist after the last block combined the
  // blocks' partials.
  SmallVector<Operation *> sums;
  llvm::DenseSet<Value> late;
  for (Operation &op : info.body->without_terminator()) {
    bool sum = isTensorSum(&op);
    if (sum)
      sums.push_back(&op);
    if (sum || llvm::any_of(op.getOperands(),
                            [&](Value v) { return late.contains(v); }))
      for (Value r : op.getResults())
        late.insert(r);
  }

  // One loop per distinct shape of an output or a summed tensor, in output
  // order, then the summed tensors' shapes.
  SmallVector<SmallVector<unsigned>> groups;
  SmallVector<ArrayRef<int64_t>> groupShapes;
  auto groupOf = [&](ArrayRef<int64_t> shape) {
    auto *it = llvm::find(groupShapes, shape);
    if (it == groupShapes.end()) {
      groupShapes.push_back(shape);
      groups.emplace_back();
      it = groupShapes.end() - 1;
    }
    return it - groupShapes.begin();
  };
  for (auto [k, out] : llvm::enumerate(info.outputs))
    if (!late.contains(out))
      groups[groupOf(shapeOf(out))].push_back(k);
  for (Operation *sum : sums)
    (void)groupOf(shapeOf(sum->getOperand(0)));

  KernelWriter w;
  ValueEmitter ve(w, *info.body, info.indexType);
  OptimizerEmitter optimizer(ve);
  ve.anchorHook = [&](OpResult r, ArrayRef<IndexExpr> coords) {
    if (llvm::is_contained(sums, r.getOwner())) {
      r.getOwner()->emitError("codegen: a whole-tensor sum is read before "
                              "every block has finished");
      return FailureOr<CExpr>(failure());
    }
    return optimizer.emit(r, coords);
  };
  const std::string &idx = info.indexType;
  int64_t largest = 1, total = 0;
  for (Operation *sum : sums)
    largest = std::max(largest, numElements(shapeOf(sum->getOperand(0))));
  for (auto [shape, outs] : llvm::zip(groupShapes, groups))
    largest = std::max(largest, numElements(shape));
  // A launch with sums keeps one partial per block and sum: its grid is
  // fixed by the source.
  // (The schedule caps a launch with sums lower: its last block combines
  // one partial per block.)
  const int64_t threads = info.schedule.getThreads();
  int64_t grid = std::clamp<int64_t>(ceilDivide(largest, threads), 1,
                                     maxGridBlocks(info.schedule));
  SmallVector<std::string> accs;
  if (!sums.empty()) {
    info.needs.reductions = true;
    emitGridGuard(w, grid);
  }
  for (Operation *sum : sums) {
    Type acc = accumulationType(elementTypeOf(sum->getOperand(0)));
    std::string a = w.fresh("tsum");
    w.line(fmt::format(
        "{} {} = {};", computeType(acc), a,
        floatLiteral(acc, isa<ReduceMaxOp>(sum) ? -INFINITY : 0.0)));
    accs.push_back(a);
  }
  for (auto [shape, outs] : llvm::zip(groupShapes, groups)) {
    int64_t n = numElements(shape);
    largest = std::max(largest, n);
    total += n;
    w.push(fmt::format("for ({0} i = ({0})blockIdx.x * blockDim.x + "
                       "threadIdx.x; i < {1}; i += ({0})gridDim.x * "
                       "blockDim.x) {{",
                       idx, n),
           "}");
    int var = w.addVar("i", n, w.depth());
    IndexExpr i = IndexExpr::variable(w.vars(), var);
    SmallVector<IndexExpr> coords = ve.coordsOf(i, shape);
    for (unsigned k : outs) {
      FailureOr<CExpr> value = ve.emit(info.outputs[k], coords);
      if (failed(value))
        return failure();
      w.line(storeOutput(info, k, "i", value->code));
    }
    for (auto [n, sum] : llvm::enumerate(sums)) {
      Value x = sum->getOperand(0);
      if (shapeOf(x) != shape)
        continue;
      FailureOr<CExpr> value = ve.emit(x, coords);
      if (failed(value))
        return failure();
      w.line(isa<ReduceMaxOp>(sum)
                 ? fmt::format("{0} = tfc_max({0}, {1});", accs[n], value->code)
                 : fmt::format("{} = {};", accs[n],
                               wrappingArith(accumulationType(elementTypeOf(x)),
                                             '+', accs[n], value->code)));
    }
    w.pop();
  }
  if (failed(emitTensorSumStage(info, w, ve, sums, late, accs, grid)))
    return failure();

  CudaKernel kernel;
  // Enough threads for the largest tensor (each loop is grid-stride).
  kernel.grid = {grid, 1, 1};
  kernel.block = {threads, 1, 1};
  std::string summary =
      fmt::format("multi_tensor over {} tensor shape(s), {} elements{}",
                  groups.size(), total,
                  sums.empty() ? ""
                               : fmt::format(", {} whole-tensor sum(s) with a "
                                             "deterministic cross-block stage",
                                             sums.size()));
  kernel.source = assembleSource(info, w, threads, summary);
  return kernel;
}
