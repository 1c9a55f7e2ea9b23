//===- RowReductionKernel.cpp - one warp or block per row -----------------===//
//
// Every row reduction of the body walks the same rows (the kernel rules
// check it), so the kernel is a loop over rows where element `j` of row
// `row` has linear index `row * L + j` in every row-shaped value. A row of
// at most 1024 elements belongs to one warp (lane `l` holds elements
// l, l + 32, ...), a longer one to a block. The reductions' inputs are kept
// in register arrays when they fit (`#pragma unroll` turns `x[k]` into
// registers) and re-read otherwise; each reduction is a per-thread pass in a
// fixed order plus a butterfly all-reduce, so every thread ends with the
// same row statistic and results do not depend on scheduling.
//
// The anchors are emitted in program order, each one after the statistics
// it depends on: `softmax(layer_norm(x))` first reduces x twice, then
// materializes y and reduces it. Pointwise ops anywhere in the body are
// evaluated on demand at the index they are needed at (ValueEmitter), which
// places them before or after the reductions as their operands dictate.
//
//===----------------------------------------------------------------------===//

#include "compiler/codegen/cuda/RowKernelEmitter.h"

#include "dialects/tfc/TfcOps.h"
#include "dialects/tfc/TfcShapeUtils.h"

#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/TypeSwitch.h"

#include <cmath>
#include <fmt/format.h>
#include <set>

using namespace mlir;
using namespace mlir::tfc;
using namespace mlir::tfc::cuda;

/// Whether `op`'s CUDA code may call a slow-path routine (IEEE division
/// and square root, the range reductions of exp, log, the trigonometric
/// functions, a general power), around which ptxas saves what is live:
/// the ops with the SlowPathMath trait, and a power whose exponent
/// ValueEmitter does not turn into multiplications.
static bool isSlowPathOp(Operation *op) {
  if (op->hasTrait<OpTrait::tfc::SlowPathMath>())
    return true;
  auto pow = dyn_cast<PowOp>(op);
  double e = pow ? pow.getExponent().convertToDouble() : 1.0;
  return e != 1.0 && e != 2.0 && e != 3.0 && e != 0.0;
}

LogicalResult RowKernelEmitter::plan() {
  for (Operation &op : info.body->without_terminator())
    if (auto role = dyn_cast<KernelRoleOpInterface>(op);
        role && role.getKernelRole() == KernelRole::RowReduction)
      anchors.push_back(&op);
  RowGeometry geometry =
      cast<KernelRoleOpInterface>(anchors.front()).getRowGeometry();
  rows = geometry.rows;
  length = geometry.rowLength;
  // The schedule (TfcKernelSchedule.h) says how rows map onto blocks: a
  // warp per row, rows_per_block of them per block, or a block per row.
  KernelScheduleAttr schedule = info.schedule;
  threads = schedule.getThreads();
  unroll = schedule.getUnroll();
  warpPerRow = isWarpPerRow(schedule);
  rowsPerBlock = warpPerRow ? schedule.getRowsPerBlock() : 1;
  perThread = ceilDivide(length, warpPerRow ? 32 : threads);
  grid = std::clamp<int64_t>(ceilDivide(rows, rowsPerBlock), 1,
                             maxGridBlocks(schedule));
  // A quarter of what __launch_bounds__(threads) leaves a thread may hold
  // row arrays; the rest is for everything else: a fused prologue (concat
  // selects, index math) in a fully unrolled loop needs it (half spilled at
  // 1024 threads, where a thread has 64 registers).
  int64_t registers =
      describeTarget(schedule.getTarget()).registersPerMultiprocessor;
  registersLeft = std::min<int64_t>(kRegisterBudget, registers / threads / 4);
  // A pass that reads row arrays is fully unrolled, and what is live across
  // a slow-path call in it is saved around the call. Where the body's own
  // pointwise math calls slow paths (not only the row ops' code), arrays get
  // at most kSlowPathArrayRegisters: a short row (a few elements a lane)
  // keeps its arrays, a long one re-reads its rows in every pass. Seed
  // 961280 of scripts/fuzz-fusion: a cross-entropy and two layer_norm
  // backwards over rows of 1000 with a square root and a division in the
  // row held two 32-lane arrays, used all 255 registers at sm_90 and spilled
  // 8 bytes; with one array held it spilled 40, with none it uses 48
  // registers (sm_80 and sm_90). Reading only the one slow pass's row from
  // memory instead spilled 916 bytes.
  if (llvm::any_of(info.body->without_terminator(), [&](Operation &op) {
        return !llvm::is_contained(anchors, &op) && isSlowPathOp(&op);
      }))
    registersLeft = std::min(registersLeft, kSlowPathArrayRegisters);

  // Every pass that reads a row array is unrolled over the lane's
  // elements, and ptxas keeps what those passes read of each row-sized
  // operand live across the unrolled iterations: register demand grows with
  // elements per lane x row-sized operands x passes (about one per row
  // reduction). Beyond kUnrolledRowPressure the kernel keeps no arrays and
  // re-reads its rows in rolled loops. Seed 992880 of scripts/fuzz-fusion:
  // two layer_norms and both their backwards over a row of 1000 (32 a
  // lane, 8 row-sized operands, 6 row reductions: 1536) used 255 registers
  // and spilled 868 bytes at sm_90; without arrays it uses 32. The same
  // kernel over rows of 640 (960) used 224 and over 768 (1152) spilled 8
  // bytes; seed 995410, a layer_norm, cross-entropy, its gradient and the
  // layer_norm backward over rows of 1000 (32 x 7 x 4 = 896), spilled 32
  // bytes at sm_80. The row kernels of gpt-mini and gpt2-small in every
  // precision and recompute mode stay at or below 432.
  int64_t rowOperands = 0;
  for (BlockArgument arg : info.body->getArguments())
    rowOperands += numElements(shapeOf(arg)) >= length;
  for (Value out : info.outputs)
    rowOperands += numElements(shapeOf(out)) >= length;
  if (perThread * rowOperands * static_cast<int64_t>(anchors.size()) >
      kUnrolledRowPressure)
    registersLeft = 0;

  // Values computed from a loss exist only after the last block has summed
  // all rows: they form the kernel's final stage.
  for (Operation &op : info.body->without_terminator()) {
    bool late = isa<CrossEntropyOp>(op) ||
                llvm::any_of(op.getOperands(),
                             [&](Value v) { return afterAllRows.contains(v); });
    if (!late)
      continue;
    for (Value r : op.getResults())
      afterAllRows.insert(r);
    if (auto ce = dyn_cast<CrossEntropyOp>(op))
      losses.push_back({ce, "", ""});
  }
  // Column sums over the rows, and what is computed from them: they exist
  // after the last block has summed all blocks' partials (the kernel rules
  // bound their registers and keep rows within one warp).
  for (Operation &op : info.body->without_terminator()) {
    auto role = dyn_cast<KernelRoleOpInterface>(op);
    bool sum = role && role.getKernelRole() == KernelRole::ColumnReduction;
    if (sum)
      columnSums.push_back(&op);
    if (sum || llvm::any_of(op.getOperands(),
                            [&](Value v) { return perColumn.contains(v); }))
      for (Value r : op.getResults())
        perColumn.insert(r);
  }
  if (!columnSums.empty() && !warpPerRow)
    return columnSums.front()->emitError(
        "codegen: column sums over rows need one warp per row (the schedule "
        "rules reject this schedule)");
  return success();
}

std::string RowKernelEmitter::rowKey(Value value) {
  IndexExpr row = IndexExpr::variable(w.vars(), rowVar);
  return ve->keyOf(value, ve->coordsOf(row, shapeOf(value)));
}

bool RowKernelEmitter::isCurrentRow(Value value, ArrayRef<IndexExpr> coords) {
  std::string row = IndexExpr::variable(w.vars(), rowVar).render();
  // The leading dims that number the rows: when their coordinates are the
  // current row, the element is in it whatever the trailing coordinates are
  // (each stays within its dim), data-dependent ones included (the logit a
  // cross_entropy picks at its label).
  ArrayRef<int64_t> shape = shapeOf(value);
  int64_t prefix = 1;
  for (size_t k = 0; k <= shape.size(); ++k) {
    if (k > 0)
      prefix *= shape[k - 1];
    if (prefix == rows && numElements(shape.drop_front(k)) == length &&
        linearize(coords.take_front(k), shape.take_front(k)).render() == row)
      return true;
  }
  IndexExpr linear = linearize(coords, shape);
  SmallVector<IndexExpr> split;
  return linear.delinearize({rows, length}, split) && split[0].render() == row;
}

CExpr RowKernelEmitter::rowStat(Type accType, const std::string &expr) {
  return w.declare(rowLevel, computeType(accType), expr, "s");
}

bool RowKernelEmitter::computedWith(
    Value value, llvm::function_ref<bool(Operation *)> predicate) {
  llvm::SmallVector<Value> work = {value};
  llvm::DenseSet<Value> seen;
  while (!work.empty()) {
    Value v = work.pop_back_val();
    Operation *op = v.getDefiningOp();
    if (!op || !seen.insert(v).second || llvm::is_contained(anchors, op))
      continue;
    if (predicate(op))
      return true;
    work.append(op->operand_begin(), op->operand_end());
  }
  return false;
}

bool RowKernelEmitter::callsSlowPaths(Value value) {
  return computedWith(value, isSlowPathOp);
}

bool RowKernelEmitter::computesPhilox(Value value) {
  return computedWith(value,
                      [](Operation *op) { return isa<DropoutOp, RandomOp>(op); });
}

bool RowKernelEmitter::readsMemory(Value value) {
  llvm::SmallVector<Value> work = {value};
  llvm::DenseSet<Value> seen;
  while (!work.empty()) {
    Value v = work.pop_back_val();
    if (!seen.insert(v).second)
      continue;
    Operation *op = v.getDefiningOp();
    if (!op || llvm::is_contained(anchors, op))
      return true;
    work.append(op->operand_begin(), op->operand_end());
  }
  return false;
}

LogicalResult RowKernelEmitter::emitAnchor(Operation *op) {
  Value x = anchorInput(op);
  Type et = elementTypeOf(x);
  Type acc = accumulationType(et);
  std::string act = computeType(acc);
  std::string len = isa<FloatType>(acc) ? floatLiteral(acc, (double)length)
                                        : intLiteral(acc, length);
  auto identity = [](StringRef v) { return v.str(); };
  // A single pass over an input used nowhere else need not be kept.
  bool onePassOnly = x.hasOneUse();

  LogicalResult result =
      llvm::TypeSwitch<Operation *, LogicalResult>(op)
          .Case<ReduceSumOp, ReduceMeanOp, ReduceMaxOp>([&](auto r) {
            if (failed(materialize(x, !onePassOnly)))
              return failure();
            bool isMax = isa<ReduceMaxOp>(op);
            FailureOr<std::string> a =
                reduce(x, isMax ? Combine::Max : Combine::Sum, acc, identity);
            if (failed(a))
              return failure();
            std::string value = *a;
            if (isa<ReduceMeanOp>(op))
              value = *a + " / " + len;
            Value res = op->getResult(0);
            CExpr stat = w.declare(rowLevel, computeType(et),
                                   roundToStorage(et, value), "s");
            w.remember(res, rowKey(res), stat);
            return success();
          })
          .Case<LayerNormOp>([&](LayerNormOp ln) {
            if (failed(materialize(x, true)))
              return failure();
            FailureOr<std::string> sum = reduce(x, Combine::Sum, acc, identity);
            if (failed(sum))
              return failure();
            CExpr mean = rowStat(acc, *sum + " / " + len);
            FailureOr<std::string> sq =
                reduce(x, Combine::Sum, acc, [&](StringRef v) {
                  return fmt::format("({0} - {1}) * ({0} - {1})", v.str(),
                                     mean.code);
                });
            if (failed(sq))
              return failure();
            CExpr rstd = rowStat(
                acc,
                fmt::format("{} / {}({} / {} + {})", floatLiteral(acc, 1.0),
                            acc.isF64() ? "sqrt" : "sqrtf", *sq, len,
                            floatLiteral(acc, ln.getEps().convertToDouble())));
            w.remember(ln.getMean(), rowKey(ln.getMean()), mean);
            w.remember(ln.getRstd(), rowKey(ln.getRstd()), rstd);
            stats[op] = {mean.code, rstd.code};
            return success();
          })
          .Case<RmsNormOp>([&](RmsNormOp rn) {
            if (failed(materialize(x, true)))
              return failure();
            FailureOr<std::string> sq =
                reduce(x, Combine::Sum, acc, [&](StringRef v) {
                  return fmt::format("{0} * {0}", v.str());
                });
            if (failed(sq))
              return failure();
            CExpr rstd = rowStat(
                acc,
                fmt::format("{} / {}({} / {} + {})", floatLiteral(acc, 1.0),
                            acc.isF64() ? "sqrt" : "sqrtf", *sq, len,
                            floatLiteral(acc, rn.getEps().convertToDouble())));
            w.remember(rn.getRstd(), rowKey(rn.getRstd()), rstd);
            stats[op] = {rstd.code};
            return success();
          })
          .Case<SoftmaxOp, LogSoftmaxOp>([&](auto) {
            if (failed(materialize(x, true)))
              return failure();
            auto ms = softmaxStatistics(x, acc);
            if (failed(ms))
              return failure();
            auto [m, s] = *ms;
            stats[op] = {m, s};
            if (isa<LogSoftmaxOp>(op))
              stats[op].push_back(
                  rowStat(acc, fmt::format("{}({})",
                                           acc.isF64() ? "log" : "logf", s))
                      .code);
            return success();
          })
          .Case<CrossEntropyOp>([&](CrossEntropyOp ce) -> LogicalResult {
            if (failed(materialize(x, true)))
              return failure();
            auto ms = softmaxStatistics(x, acc);
            if (failed(ms))
              return failure();
            const std::string *m = &ms->first, *s = &ms->second;
            double e = ce.getLabelSmoothing().convertToDouble();
            std::string smoothSum;
            if (e > 0.0) {
              FailureOr<std::string> sx =
                  reduce(x, Combine::Sum, acc, [&](StringRef v) {
                    return fmt::format("{} - {}", v.str(), *m);
                  });
              if (failed(sx))
                return failure();
              smoothSum = *sx;
            }
            CExpr logSum = rowStat(
                acc, fmt::format("{}({})", acc.isF64() ? "log" : "logf", *s));
            // The label of this row, and the logit it picks (read at a
            // clamped index: an out-of-range label must not read outside).
            Value labels = ce.getLabels();
            FailureOr<CExpr> label =
                ve->emit(labels, {IndexExpr::variable(w.vars(), rowVar)});
            if (failed(label))
              return failure();
            int64_t classes = shapeOf(x)[1];
            CExpr safe =
                w.declare(rowLevel, info.indexType,
                          fmt::format("tfc_clamp<{}>({}, 0, {})",
                                      info.indexType, label->code, classes - 1),
                          "label");
            FailureOr<CExpr> picked =
                ve->emit(x, {IndexExpr::variable(w.vars(), rowVar),
                             IndexExpr::opaque(safe.code, classes, rowLevel)});
            if (failed(picked))
              return failure();
            auto ignoreIndex = static_cast<int64_t>(ce.getIgnoreIndex());
            CExpr ignored = w.declare(
                rowLevel, "bool",
                fmt::format("{} == {}LL", label->code, ignoreIndex), "ign");
            // -log p[label], and -sum_c log p[c] for label smoothing.
            std::string nll =
                fmt::format("-(({} - {}) - {})", picked->code, *m, logSum.code);
            std::string rowLoss = nll;
            if (e > 0.0) {
              std::string smooth =
                  fmt::format("-({} - {} * {})", smoothSum,
                              floatLiteral(acc, (double)classes), logSum.code);
              rowLoss = fmt::format("{} * ({}) + {} * ({})",
                                    floatLiteral(acc, 1.0 - e), nll,
                                    floatLiteral(acc, e / classes), smooth);
            }
            // A label outside [0, C) that is not ignored has no defined
            // loss (PyTorch raises): the row contributes NaN.
            CExpr loss = w.declare(
                rowLevel, act,
                fmt::format("{0} ? {1} : (({2} >= 0 && {2} < {3}) ? {4} : {5})",
                            ignored.code, floatLiteral(acc, 0.0), label->code,
                            classes, rowLoss, floatLiteral(acc, NAN)),
                "loss");
            for (LossAccumulator &l : losses) {
              if (l.op != ce)
                continue;
              w.line(fmt::format("{0} = {0} + {1};", l.loss, loss.code));
              w.line(fmt::format("{0} = {0} + ({1} ? {2} : {3});", l.count,
                                 ignored.code, floatLiteral(acc, 0.0),
                                 floatLiteral(acc, 1.0)));
            }
            return success();
          })
          .Case<SoftmaxGradOp, LogSoftmaxGradOp, LayerNormGradInputOp,
                RmsNormGradInputOp, CrossEntropyGradOp>(
              [&](Operation *grad) { return emitGradAnchor(grad); })
          .Default([&](Operation *other) -> LogicalResult {
            return other->emitError()
                   << "codegen: row reduction '" << other->getName()
                   << "' is not supported";
          });
  if (succeeded(result))
    emitted.insert(op);
  return result;
}

FailureOr<CExpr> RowKernelEmitter::anchorResult(OpResult result,
                                                ArrayRef<IndexExpr> coords) {
  Operation *op = result.getOwner();
  if (llvm::is_contained(columnSums, op)) {
    op->emitError("codegen: a column sum over the rows is read before all "
                  "rows are reduced");
    return failure();
  }
  if (!emitted.contains(op)) {
    op->emitError() << "codegen: '" << op->getName()
                    << "' is used before its row statistics exist";
    return failure();
  }
  if (isa<SoftmaxGradOp, LogSoftmaxGradOp, LayerNormGradInputOp,
          RmsNormGradInputOp, CrossEntropyGradOp>(op))
    return gradAnchorResult(result, coords);
  if (isa<CrossEntropyOp>(op)) {
    op->emitError("codegen: a cross_entropy loss exists only after all "
                  "rows are reduced; it cannot feed per-row work of the same "
                  "kernel");
    return failure();
  }
  // Statistics (mean, rstd, reduce results) are one register per row; a
  // lookup miss means they are read at another row's index.
  bool elementwise =
      (isa<LayerNormOp, RmsNormOp>(op) && result.getResultNumber() == 0) ||
      isa<SoftmaxOp, LogSoftmaxOp>(op);
  Value x = anchorInput(op);
  if (!elementwise || !isCurrentRow(x, coords)) {
    op->emitError() << "codegen: a result of '" << op->getName()
                    << "' is read at an index outside the row being reduced";
    return failure();
  }
  FailureOr<CExpr> xv = ve->emit(x, coords);
  if (failed(xv))
    return failure();
  Type et = elementTypeOf(result);
  Type acc = accumulationType(elementTypeOf(x));
  ArrayRef<std::string> s = stats[op];
  int level = xv->level;
  std::string expr;
  auto scaleBy = [&](Value param) -> LogicalResult {
    if (!param)
      return success();
    FailureOr<CExpr> p =
        ve->emit(param, ValueEmitter::broadcastCoords(coords, shapeOf(x),
                                                      shapeOf(param)));
    if (failed(p))
      return failure();
    level = std::max(level, p->level);
    expr = fmt::format("({}) * {}", expr, p->code);
    return success();
  };
  if (auto ln = dyn_cast<LayerNormOp>(op)) {
    expr = fmt::format("({} - {}) * {}", xv->code, s[0], s[1]);
    if (failed(scaleBy(ln.getWeight())))
      return failure();
    if (Value bias = ln.getBias()) {
      FailureOr<CExpr> b =
          ve->emit(bias, ValueEmitter::broadcastCoords(coords, shapeOf(x),
                                                       shapeOf(bias)));
      if (failed(b))
        return failure();
      level = std::max(level, b->level);
      expr = fmt::format("{} + {}", expr, b->code);
    }
  } else if (auto rn = dyn_cast<RmsNormOp>(op)) {
    expr = fmt::format("{} * {}", xv->code, s[0]);
    if (failed(scaleBy(rn.getWeight())))
      return failure();
  } else if (isa<SoftmaxOp>(op)) {
    expr = fmt::format("{}({} - {}) / {}", acc.isF64() ? "exp" : "expf",
                       xv->code, s[0], s[1]);
  } else {
    expr = fmt::format("({} - {}) - {}", xv->code, s[0], s[2]);
  }
  level = std::max({level, rowLevel, linearize(coords, shapeOf(x)).level()});
  return w.declare(level, computeType(et), roundToStorage(et, expr));
}

LogicalResult RowKernelEmitter::emitGridStage() {
  if (losses.empty() && columnSums.empty())
    return success();
  // Per-block sums in warp order, then one partial per block.
  for (auto [n, l] : llvm::enumerate(losses)) {
    Type lacc = accumulationType(elementTypeOf(l.op.getLogits()));
    std::string t = computeType(lacc);
    w.global(fmt::format("__device__ {} tfc_partial_loss{}[{}];", t, n, grid));
    w.global(fmt::format("__device__ {} tfc_partial_count{}[{}];", t, n, grid));
    if (warpPerRow) {
      w.line(fmt::format("__shared__ {0} tfc_warp_loss{1}[{2}], "
                         "tfc_warp_count{1}[{2}];",
                         t, n, rowsPerBlock));
      w.line(fmt::format("if (lane == 0) {{ tfc_warp_loss{0}[warp] = {1}; "
                         "tfc_warp_count{0}[warp] = {2}; }}",
                         n, l.loss, l.count));
    }
  }
  // Column sums: the block's warps add their positions into shared memory
  // one warp after the other, then the block writes its partial row.
  for (auto [n, sum] : llvm::enumerate(columnSums)) {
    Type acc = accumulationType(elementTypeOf(sum->getOperand(0)));
    std::string t = computeType(acc);
    w.global(fmt::format("__device__ {} tfc_partial_col{}[{}];", t, n,
                         grid * length));
    w.line(fmt::format("__shared__ {} tfc_block_col{}[{}];", t, n, length));
    w.push(fmt::format("for (int q = 0; q < {}; ++q) {{", rowsPerBlock), "}");
    w.push("if (warp == q) {", "}");
    w.line(fmt::format(
        "#pragma unroll\nfor (int k = 0; k < {0}; ++k) {{ const int j = lane "
        "+ 32 * k; if (j < {1}) tfc_block_col{2}[j] = {3}; }}",
        perThread, length, n,
        wrappingArith(acc, '+',
                      fmt::format("(q == 0 ? {} : tfc_block_col{}[j])",
                                  floatLiteral(acc, 0.0), n),
                      colAccs[n] + "[k]")));
    w.pop();
    w.line("__syncthreads();");
    w.pop();
    w.line(fmt::format("for (int j = threadIdx.x; j < {0}; j += blockDim.x) "
                       "tfc_partial_col{1}[blockIdx.x * {0} + j] = "
                       "tfc_block_col{1}[j];",
                       length, n));
  }
  if (warpPerRow)
    w.line("__syncthreads();");
  if (!losses.empty())
    w.push("if (threadIdx.x == 0) {", "}");
  for (auto [n, l] : llvm::enumerate(losses)) {
    Type lacc = accumulationType(elementTypeOf(l.op.getLogits()));
    std::string t = computeType(lacc);
    if (warpPerRow) {
      w.line(fmt::format("{0} block_loss{1} = tfc_warp_loss{1}[0], "
                         "block_count{1} = tfc_warp_count{1}[0];",
                         t, n));
      w.line(fmt::format("for (int q = 1; q < {0}; ++q) {{ block_loss{1} += "
                         "tfc_warp_loss{1}[q]; block_count{1} += "
                         "tfc_warp_count{1}[q]; }}",
                         rowsPerBlock, n));
    } else {
      w.line(fmt::format("const {0} block_loss{1} = {2}, block_count{1} = {3};",
                         t, n, l.loss, l.count));
    }
    w.line(fmt::format("tfc_partial_loss{0}[blockIdx.x] = block_loss{0};", n));
    w.line(
        fmt::format("tfc_partial_count{0}[blockIdx.x] = block_count{0};", n));
  }
  if (!losses.empty())
    w.pop();
  // Publish the partials (every thread wrote some), then the last block to
  // finish sums them in block order: deterministic whatever the blocks'
  // completion order.
  emitLastBlockElection(w);
  w.push("if (tfc_last_block) {", "}");
  w.line("__threadfence();");
  if (!losses.empty())
    w.push("if (threadIdx.x == 0) {", "}");
  for (auto [n, l] : llvm::enumerate(losses)) {
    Type lacc = accumulationType(elementTypeOf(l.op.getLogits()));
    std::string t = computeType(lacc);
    w.line(fmt::format("{0} total_loss{1} = {2}, total_count{1} = {2};", t, n,
                       floatLiteral(lacc, 0.0)));
    w.line(fmt::format("for (int b = 0; b < {0}; ++b) {{ total_loss{1} += "
                       "__ldcg(&tfc_partial_loss{1}[b]); total_count{1} += "
                       "__ldcg(&tfc_partial_count{1}[b]); }}",
                       grid, n));
    // mean: sum over non-ignored rows / their count (NaN when all are
    // ignored, as in PyTorch); sum: not divided.
    bool mean = l.op.getReduction() == LossReduction::mean;
    std::string value = mean ? fmt::format("total_loss{0} / total_count{0}", n)
                             : fmt::format("total_loss{}", n);
    CExpr loss = w.declare(w.depth(), t, value, "loss");
    Value r = l.op.getResult();
    w.remember(r, ve->keyOf(r, {}), loss);
  }
  for (auto [k, out] : llvm::enumerate(info.outputs)) {
    if (!afterAllRows.contains(out) || perColumn.contains(out))
      continue;
    SmallVector<IndexExpr> zeros(shapeOf(out).size(), IndexExpr::constant(0));
    FailureOr<CExpr> v = ve->emit(out, zeros);
    if (failed(v))
      return failure();
    w.line(storeOutput(info, k, "0", v->code));
  }
  if (!losses.empty())
    w.pop();
  if (failed(emitColumnStage()))
    return failure();
  // Re-arm the counter for the next launch.
  w.line("if (threadIdx.x == 0) tfc_blocks_done = 0u;");
  w.pop();
  return success();
}

LogicalResult RowKernelEmitter::emitColumnStage() {
  if (columnSums.empty())
    return success();
  // Each thread of the last block owns positions jc of the row: the sum of
  // the blocks' partials in block order, then the per-column outputs.
  w.push(fmt::format("for (int jc = threadIdx.x; jc < {}; jc += blockDim.x) {{",
                     length),
         "}");
  IndexExpr jc =
      IndexExpr::variable(w.vars(), w.addVar("jc", length, w.depth()));
  for (auto [n, sum] : llvm::enumerate(columnSums)) {
    Type acc = accumulationType(elementTypeOf(sum->getOperand(0)));
    std::string t = computeType(acc);
    std::string total = w.fresh("coltotal");
    w.line(fmt::format("{} {} = {};", t, total, floatLiteral(acc, 0.0)));
    std::string partial =
        fmt::format("__ldcg(&tfc_partial_col{}[b * {} + jc])", n, length);
    w.line(fmt::format(
        "for (int b = 0; b < {}; ++b) {}", grid,
        isa<FloatType>(acc)
            ? fmt::format("{} += {};", total, partial)
            : fmt::format("{} = {};", total,
                          wrappingArith(acc, '+', total, partial))));
    std::string value = total;
    if (isa<ReduceMeanOp>(sum))
      value = fmt::format("{} / {}", total, floatLiteral(acc, (double)rows));
    Value r = sum->getResult(0);
    Type et = elementTypeOf(r);
    CExpr result =
        w.declare(w.depth(), computeType(et), roundToStorage(et, value), "col");
    w.remember(r, ve->keyOf(r, ve->coordsOf(jc, shapeOf(r))), result);
  }
  for (auto [k, out] : llvm::enumerate(info.outputs)) {
    if (!perColumn.contains(out))
      continue;
    FailureOr<CExpr> v = ve->emit(out, ve->coordsOf(jc, shapeOf(out)));
    if (failed(v))
      return failure();
    w.line(storeOutput(info, k, jc.render(), v->code));
  }
  w.pop();
  return success();
}

FailureOr<CudaKernel> RowKernelEmitter::run() {
  if (failed(plan()))
    return failure();
  ve = std::make_unique<ValueEmitter>(w, *info.body, info.indexType);
  ve->anchorHook = [this](OpResult r, ArrayRef<IndexExpr> coords) {
    return anchorResult(r, coords);
  };

  // Classify the outputs: after all rows (losses), one per row, or one per
  // element of the rows.
  enum class Place { Final, Row, Element, Column };
  SmallVector<Place> places;
  for (Value out : info.outputs) {
    int64_t n = numElements(shapeOf(out));
    if (perColumn.contains(out)) {
      places.push_back(Place::Column);
    } else if (afterAllRows.contains(out)) {
      if (n != 1)
        return info.terminator->emitError()
               << "codegen: an output computed from a cross_entropy loss "
                  "must be a scalar";
      places.push_back(Place::Final);
    } else if (n == rows * length) {
      places.push_back(Place::Element);
    } else if (n == rows) {
      places.push_back(Place::Row);
    } else {
      return info.terminator->emitError()
             << "codegen: row_reduction output of " << n
             << " elements is neither one per row (" << rows
             << ") nor one per element (" << rows * length << ")";
    }
  }

  if (warpPerRow) {
    laneId = "lane";
    w.line("const int lane = threadIdx.x & 31;");
    w.line("const int warp = threadIdx.x >> 5;");
  } else {
    laneId = "(int)threadIdx.x";
  }
  if (!losses.empty() || !columnSums.empty())
    emitGridGuard(w, grid);
  for (Operation *sum : columnSums) {
    Type acc = accumulationType(elementTypeOf(sum->getOperand(0)));
    std::string array = w.fresh("colacc");
    w.line(fmt::format("{} {}[{}];", computeType(acc), array, perThread));
    w.line(fmt::format("#pragma unroll\nfor (int k = 0; k < {}; ++k) {}[k] "
                       "= {};",
                       perThread, array, floatLiteral(acc, 0.0)));
    colAccs.push_back(array);
  }
  for (auto [n, l] : llvm::enumerate(losses)) {
    Type lacc = accumulationType(elementTypeOf(l.op.getLogits()));
    l.loss = fmt::format("run_loss{}", n);
    l.count = fmt::format("run_count{}", n);
    w.line(fmt::format("{0} {1} = {3}, {2} = {3};", computeType(lacc), l.loss,
                       l.count, floatLiteral(lacc, 0.0)));
  }

  if (failed(emitLabelCounts()))
    return failure();

  const std::string &idx = info.indexType;
  if (warpPerRow)
    w.push(fmt::format("for ({0} row = ({0})blockIdx.x * {1} + warp; row < "
                       "{2}; row += ({0})gridDim.x * {1}) {{",
                       idx, rowsPerBlock, rows),
           "}");
  else
    w.push(fmt::format("for ({0} row = blockIdx.x; row < {1}; row += "
                       "gridDim.x) {{",
                       idx, rows),
           "}");
  rowLevel = w.depth();
  rowVar = w.addVar("row", rows, rowLevel);

  // One value per row, written by the row's first thread as soon as the
  // reductions it needs are done: what only it needs is then dead before
  // the next reduction's loop (fewer values live across that loop's
  // slow-path calls, which would be spilled).
  std::string first = warpPerRow ? "lane == 0" : "threadIdx.x == 0";
  SmallVector<llvm::SmallPtrSet<Operation *, 4>> needs(info.outputs.size());
  for (auto [k, out] : llvm::enumerate(info.outputs)) {
    SmallVector<Value> work = {out};
    llvm::DenseSet<Value> seen;
    while (!work.empty()) {
      Value v = work.pop_back_val();
      Operation *op = v.getDefiningOp();
      if (!op || !seen.insert(v).second)
        continue;
      if (llvm::is_contained(anchors, op))
        needs[k].insert(op);
      work.append(op->operand_begin(), op->operand_end());
    }
  }
  SmallVector<bool> stored(info.outputs.size(), false);
  auto storeReadyRows = [&]() -> LogicalResult {
    for (auto [k, out] : llvm::enumerate(info.outputs)) {
      if (places[k] != Place::Row || stored[k] ||
          llvm::any_of(needs[k],
                       [&](Operation *op) { return !emitted.contains(op); }))
        continue;
      IndexExpr row = IndexExpr::variable(w.vars(), rowVar);
      FailureOr<CExpr> v = ve->emit(out, ve->coordsOf(row, shapeOf(out)));
      if (failed(v))
        return failure();
      w.line(fmt::format("if ({}) {}", first,
                         storeOutput(info, k, row.render(), v->code)));
      stored[k] = true;
    }
    return success();
  };
  for (Operation *op : anchors)
    if (failed(emitAnchor(op)) || failed(storeReadyRows()))
      return failure();
  // One value per element. An epilogue with slow-path calls reads the row
  // again rather than from register arrays (see callsSlowPaths).
  // The column sums accumulate in the same pass (a thread always holds the
  // same positions of the row: j = lane + 32 * k).
  if (llvm::is_contained(places, Place::Element) || !columnSums.empty()) {
    bool heavy = false;
    for (auto [k, out] : llvm::enumerate(info.outputs))
      heavy |= places[k] == Place::Element && callsSlowPaths(out);
    for (Operation *sum : columnSums)
      heavy |= callsSlowPaths(sum->getOperand(0));
    // The row-shaped operands of the anchors these outputs are computed
    // from, loaded ahead where the schedule says so.
    SmallVector<Value> ahead;
    for (auto [k, out] : llvm::enumerate(info.outputs))
      if (places[k] == Place::Element)
        for (Operation *op : anchors)
          if (needs[k].contains(op))
            llvm::append_range(ahead, rowShapedOperands(op));
    FailureOr<IndexExpr> lanes = openLanes(/*withArrays=*/!heavy, ahead);
    if (failed(lanes))
      return failure();
    IndexExpr e = *lanes;
    for (auto [k, out] : llvm::enumerate(info.outputs)) {
      if (places[k] != Place::Element)
        continue;
      FailureOr<CExpr> v = ve->emit(out, ve->coordsOf(e, shapeOf(out)));
      if (failed(v))
        return failure();
      w.line(storeOutput(info, k, e.render(), v->code));
    }
    for (auto [n, sum] : llvm::enumerate(columnSums)) {
      Value x = sum->getOperand(0);
      FailureOr<CExpr> v = ve->emit(x, ve->coordsOf(e, shapeOf(x)));
      if (failed(v))
        return failure();
      Type acc = accumulationType(elementTypeOf(x));
      w.line(fmt::format("{}[k] = {};", colAccs[n],
                         wrappingArith(acc, '+', colAccs[n] + "[k]", v->code)));
    }
    closeLanes();
  }
  w.pop(); // row loop

  if (failed(emitGridStage()))
    return failure();

  CudaKernel kernel;
  kernel.grid = {grid, 1, 1};
  kernel.block = {threads, 1, 1};
  std::string summary =
      fmt::format("row_reduction, {} rows of {}, one {} per row{}{}", rows,
                  length, warpPerRow ? "warp" : "block",
                  rowArrays.empty() ? "" : ", row in registers",
                  losses.empty() && columnSums.empty()
                      ? ""
                      : ", deterministic cross-block stage");
  kernel.source = assembleSource(info, w, threads, summary);
  return kernel;
}

FailureOr<CudaKernel>
mlir::tfc::cuda::emitRowReductionKernel(KernelInfo &info) {
  RowKernelEmitter emitter(info);
  return emitter.run();
}
