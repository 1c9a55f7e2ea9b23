//===- ColumnReductionKernel.cpp - reductions over leading dims -----------===//
//
// A column reduction keeps the last dimension, so output element `o`
// (a "column") gathers the input elements `(o, r)` for r in [0, R), and
// consecutive columns are consecutive in memory. A block owns 32 columns
// (threadIdx.x, coalesced) and 8 row groups (threadIdx.y) that sum strided
// rows of its share in a fixed order; the 8 partials are combined in shared
// memory in row-group order. When there are few columns the rows are also
// split over blockIdx.y ("splits"); each split writes its partial to a
// __device__ array and the last block of a column tile to arrive (atomic
// counter, an integer) sums the partials in split order. Nothing depends on
// which block finishes first, so the result is deterministic, and there are
// no float atomics.
//
//===----------------------------------------------------------------------===//

#include "compiler/codegen/cuda/KernelEmitters.h"
#include "compiler/codegen/cuda/ValueEmitter.h"

#include "dialects/tfc/TfcOps.h"
#include "dialects/tfc/TfcShapeUtils.h"

#include "llvm/ADT/DenseSet.h"

#include <cmath>
#include <fmt/format.h>

using namespace mlir;
using namespace mlir::tfc;
using namespace mlir::tfc::cuda;

namespace {
/// Columns of a block (TfcKernelSchedule.h).
constexpr int64_t kColumnsPerBlock = kColumnReductionBlockColumns;
/// Rows a split should at least have, per row group.
constexpr int64_t kMinRowsPerGroupSplit = 8;

/// The normalized reduced dims of a column-reduction op.
SmallVector<int64_t> reducedDims(Operation *op) {
  if (auto r = dyn_cast<ReduceSumOp>(op))
    return r.getNormalizedDims();
  if (auto r = dyn_cast<ReduceMeanOp>(op))
    return r.getNormalizedDims();
  return cast<ReduceMaxOp>(op).getNormalizedDims();
}
} // namespace

FailureOr<CudaKernel>
mlir::tfc::cuda::emitColumnReductionKernel(KernelInfo &info) {
  SmallVector<Operation *> anchors;
  for (Operation &op : info.body->without_terminator())
    if (auto role = dyn_cast<KernelRoleOpInterface>(op);
        role && role.getKernelRole() == KernelRole::ColumnReduction)
      anchors.push_back(&op);
  if (!isa<ReduceSumOp, ReduceMeanOp, ReduceMaxOp>(anchors.front()))
    return anchors.front()->emitError()
           << "codegen: column reduction '" << anchors.front()->getName()
           << "' is not supported";

  // Every reduction of the kernel must walk the same (column, row) space.
  Value x0 = anchors.front()->getOperand(0);
  ArrayRef<int64_t> xShape = shapeOf(x0);
  SmallVector<int64_t> dims = reducedDims(anchors.front());
  for (Operation *op : anchors) {
    if (!isa<ReduceSumOp, ReduceMeanOp, ReduceMaxOp>(op))
      return op->emitError() << "codegen: column reduction '" << op->getName()
                             << "' is not supported";
    if (shapeOf(op->getOperand(0)) != xShape || reducedDims(op) != dims)
      return op->emitError()
             << "codegen: the column reductions of one kernel must reduce "
                "the same dims of same-shaped operands";
  }
  SmallVector<int64_t> keptSizes, reducedSizes;
  for (int64_t d = 0, e = xShape.size(); d < e; ++d)
    (llvm::is_contained(dims, d) ? reducedSizes : keptSizes)
        .push_back(xShape[d]);
  int64_t columns = numElements(keptSizes);
  int64_t rowCount = numElements(reducedSizes);
  int64_t totalElements = numElements(xShape);

  // Values that need the reductions' results are computed per column after
  // the combine; the others per element (they may only be element outputs).
  llvm::DenseSet<Value> late;
  for (Operation &op : info.body->without_terminator()) {
    bool isLate = llvm::is_contained(anchors, &op) ||
                  llvm::any_of(op.getOperands(),
                               [&](Value v) { return late.contains(v); });
    if (isLate)
      for (Value r : op.getResults())
        late.insert(r);
  }
  SmallVector<bool> perColumn;
  for (Value out : info.outputs) {
    int64_t n = numElements(shapeOf(out));
    if (n == columns && (late.contains(out) || n != totalElements)) {
      perColumn.push_back(true);
    } else if (n == totalElements && !late.contains(out)) {
      perColumn.push_back(false);
    } else {
      return info.terminator->emitError()
             << "codegen: column_reduction output of " << n
             << " elements is neither one per column (" << columns
             << ") nor one per input element (" << totalElements << ")";
    }
  }

  // The schedule: row groups per block, and the blocks the grid aims for
  // (rows are split into more partials until it is reached).
  const int64_t rowGroups = info.schedule.getRowsPerBlock();
  int64_t tiles = ceilDivide(columns, kColumnsPerBlock);
  int64_t splits = std::clamp<int64_t>(
      ceilDivide(info.schedule.getMaxBlocks(), tiles), 1,
      std::clamp<int64_t>(rowCount / (kMinRowsPerGroupSplit * rowGroups), 1,
                          65535));
  int64_t chunk = ceilDivide(std::max<int64_t>(rowCount, 1), splits);
  splits = ceilDivide(std::max<int64_t>(rowCount, 1), chunk);

  KernelWriter w;
  const std::string &idx = info.indexType;
  ValueEmitter ve(w, *info.body, idx);
  // Reduction results are registered per column in the final stage; a miss
  // means a read at another column.
  ve.anchorHook = [&](OpResult r, ArrayRef<IndexExpr>) -> FailureOr<CExpr> {
    r.getOwner()->emitError() << "codegen: a column reduction result is "
                                 "read at an index other than its column";
    return failure();
  };

  w.line("const int tx = threadIdx.x, ty = threadIdx.y;");
  if (splits > 1)
    w.line(fmt::format("if (gridDim.x != {} || gridDim.y != {}) __trap(); "
                       "// partials are sized for the generated grid",
                       tiles, splits));
  w.line(fmt::format("const {0} o = ({0})blockIdx.x * {1} + tx;", idx,
                     kColumnsPerBlock));
  w.line(fmt::format("const {0} r_begin = ({0})blockIdx.y * {1};", idx, chunk));
  w.line(fmt::format("const {0} r_end = r_begin + {1} < {2} ? r_begin + {1} : "
                     "{2};",
                     idx, chunk, rowCount));

  struct Acc {
    Operation *op;
    std::string name, type, init;
    bool isMax;
    Type accType;
  };
  SmallVector<Acc> accs;
  for (Operation *op : anchors) {
    Type et = elementTypeOf(op->getOperand(0));
    Type acc = accumulationType(et);
    bool isMax = isa<ReduceMaxOp>(op);
    std::string init =
        isMax
            ? (isa<FloatType>(acc)
                   ? floatLiteral(acc, -INFINITY)
                   : intLiteral(acc, acc.isInteger(32) ? INT32_MIN : INT64_MIN))
            : (isa<FloatType>(acc) ? floatLiteral(acc, 0.0)
                                   : intLiteral(acc, 0));
    Acc a{op, w.fresh("acc"), computeType(acc), init, isMax, acc};
    w.line(fmt::format("{} {} = {};", a.type, a.name, a.init));
    accs.push_back(a);
  }
  auto combine = [](const Acc &a, StringRef lhs, StringRef rhs) {
    return a.isMax ? fmt::format("tfc_max({}, {})", lhs.str(), rhs.str())
                   : wrappingArith(a.accType, '+', lhs, rhs);
  };

  // Stage 1: this thread's rows of its column, in increasing order.
  w.push(fmt::format("if (o < {}) {{", columns), "}");
  int oVar = w.addVar("o", columns, w.depth());
  w.push(fmt::format("for ({0} r = r_begin + ty; r < r_end; r += {1}) {{", idx,
                     rowGroups),
         "}");
  int rVar = w.addVar("r", std::max<int64_t>(rowCount, 1), w.depth());
  {
    auto kept = ve.coordsOf(IndexExpr::variable(w.vars(), oVar), keptSizes);
    auto reduced =
        ve.coordsOf(IndexExpr::variable(w.vars(), rVar), reducedSizes);
    SmallVector<IndexExpr> xCoords;
    size_t ki = 0, ri = 0;
    for (int64_t d = 0, e = xShape.size(); d < e; ++d)
      xCoords.push_back(llvm::is_contained(dims, d) ? reduced[ri++]
                                                    : kept[ki++]);
    for (const Acc &a : accs) {
      FailureOr<CExpr> v = ve.emit(a.op->getOperand(0), xCoords);
      if (failed(v))
        return failure();
      w.line(fmt::format("{} = {};", a.name, combine(a, a.name, v->code)));
    }
    IndexExpr linear = linearize(xCoords, xShape);
    for (auto [k, out] : llvm::enumerate(info.outputs)) {
      if (perColumn[k])
        continue;
      FailureOr<CExpr> v = ve.emit(out, ve.coordsOf(linear, shapeOf(out)));
      if (failed(v))
        return failure();
      w.line(storeOutput(info, k, linear.render(), v->code));
    }
  }
  w.pop();
  w.pop();

  // Combine the row groups in order.
  for (auto [n, a] : llvm::enumerate(accs)) {
    w.line(fmt::format("__shared__ {} tfc_groups{}[{}][{}];", a.type, n,
                       rowGroups, kColumnsPerBlock + 1));
    w.line(fmt::format("tfc_groups{}[ty][tx] = {};", n, a.name));
  }
  w.line("__syncthreads();");

  // Final stage per column: the results, then every per-column output.
  auto finish = [&](ArrayRef<std::string> totals) -> LogicalResult {
    // `o` is valid (< columns) only inside the current guard: a variable of
    // this level keeps what depends on it from being hoisted above it.
    IndexExpr o =
        IndexExpr::variable(w.vars(), w.addVar("o", columns, w.depth()));
    for (auto [n, a] : llvm::enumerate(accs)) {
      Value res = a.op->getResult(0);
      Type et = elementTypeOf(res);
      std::string value = totals[n];
      if (isa<ReduceMeanOp>(a.op))
        value = fmt::format("{} / {}", value,
                            floatLiteral(a.accType, (double)rowCount));
      CExpr stat = w.declare(w.depth(), computeType(et),
                             roundToStorage(et, value), "col");
      w.remember(res, ve.keyOf(res, ve.coordsOf(o, shapeOf(res))), stat);
    }
    for (auto [k, out] : llvm::enumerate(info.outputs)) {
      if (!perColumn[k])
        continue;
      FailureOr<CExpr> v = ve.emit(out, ve.coordsOf(o, shapeOf(out)));
      if (failed(v))
        return failure();
      w.line(storeOutput(info, k, o.render(), v->code));
    }
    return success();
  };

  w.push(fmt::format("if (ty == 0 && o < {}) {{", columns), "}");
  SmallVector<std::string> blockTotals;
  for (auto [n, a] : llvm::enumerate(accs)) {
    std::string total = w.fresh("total");
    w.line(fmt::format("{} {} = tfc_groups{}[0][tx];", a.type, total, n));
    w.line(
        fmt::format("for (int g = 1; g < {}; ++g) {} = {};", rowGroups, total,
                    combine(a, total, fmt::format("tfc_groups{}[g][tx]", n))));
    blockTotals.push_back(total);
  }
  if (splits == 1) {
    if (failed(finish(blockTotals)))
      return failure();
    w.pop();
  } else {
    for (auto [n, a] : llvm::enumerate(accs)) {
      w.global(fmt::format("__device__ {} tfc_split_partial{}[{}];", a.type, n,
                           splits * columns));
      w.line(fmt::format("tfc_split_partial{}[({})blockIdx.y * {} + o] = {};",
                         n, idx, columns, blockTotals[n]));
    }
    w.line("__threadfence();");
    w.pop();
    w.global(fmt::format("__device__ unsigned int tfc_tiles_done[{}];", tiles));
    w.line("__shared__ bool tfc_last_split;");
    w.line("__syncthreads();");
    w.line(fmt::format("if (tx == 0 && ty == 0) tfc_last_split = "
                       "atomicAdd(&tfc_tiles_done[blockIdx.x], 1u) == {}u;",
                       splits - 1));
    w.line("__syncthreads();");
    w.push("if (tfc_last_split) {", "}");
    w.push(fmt::format("if (ty == 0 && o < {}) {{", columns), "}");
    w.line("__threadfence();");
    SmallVector<std::string> totals;
    for (auto [n, a] : llvm::enumerate(accs)) {
      std::string total = w.fresh("total");
      w.line(fmt::format("{} {} = __ldcg(&tfc_split_partial{}[o]);", a.type,
                         total, n));
      w.line(fmt::format(
          "for (int s = 1; s < {}; ++s) {} = {};", splits, total,
          combine(a, total,
                  fmt::format("__ldcg(&tfc_split_partial{}[({})s * {} + o])", n,
                              idx, columns))));
      totals.push_back(total);
    }
    if (failed(finish(totals)))
      return failure();
    w.pop();
    // Re-arm the tile counter for the next launch.
    w.line("if (tx == 0 && ty == 0) tfc_tiles_done[blockIdx.x] = 0u;");
    w.pop();
  }

  CudaKernel kernel;
  kernel.grid = {tiles, splits, 1};
  kernel.block = {kColumnsPerBlock, rowGroups, 1};
  std::string summary = fmt::format(
      "column_reduction, {} columns of {} rows, {}", columns, rowCount,
      splits > 1
          ? fmt::format("{} splits + deterministic last-block stage", splits)
          : std::string("one stage"));
  kernel.source =
      assembleSource(info, w, kColumnsPerBlock * rowGroups, summary);
  return kernel;
}
