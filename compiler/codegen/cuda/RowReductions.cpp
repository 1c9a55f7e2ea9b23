//===- RowReductions.cpp - the passes of a row kernel ---------------------===//
//
// Members of RowKernelEmitter (RowKernelEmitter.h): the per-thread loop over
// a row's elements, the warp and block all-reduces, the register arrays a
// row is held in, and the softmax statistics (max and sum of exp) shared by
// the softmax-family anchors of RowReductionKernel.cpp and
// RowReductionGradKernel.cpp.
//
//===----------------------------------------------------------------------===//

#include "compiler/codegen/cuda/RowKernelEmitter.h"

#include <cmath>
#include <fmt/format.h>

using namespace mlir;
using namespace mlir::tfc;
using namespace mlir::tfc::cuda;

FailureOr<IndexExpr> RowKernelEmitter::openLanes(bool withArrays,
                                                 ArrayRef<Value> ahead) {
  // Loading ahead needs a rolled loop over chunks, so no pass over register
  // arrays (indexed by the unrolled k) and no column sums (colAccs[k]).
  if (unroll > 1 && columnSums.empty() && (!withArrays || rowArrays.empty())) {
    SmallVector<Value> loads;
    for (Value v : ahead)
      if (!rowArrays.count(v) && readsMemory(v) && !callsSlowPaths(v) &&
          !llvm::is_contained(loads, v))
        loads.push_back(v);
    if (!loads.empty())
      return loadAhead(loads);
  }
  chunkedLanes = false;
  int64_t stride = warpPerRow ? 32 : threads;
  w.push(
      fmt::format("#pragma unroll\nfor (int k = 0; k < {}; ++k) {{", perThread),
      "}");
  lanesLevel = w.depth();
  // Passes over register arrays only index them by k.
  w.line(fmt::format("[[maybe_unused]] const {} j = {} + {} * k;",
                     info.indexType, laneId, stride));
  lanePushes = 1;
  if (length % stride != 0) {
    w.push(fmt::format("if (j < {}) {{", length), "}");
    lanePushes = 2;
  }
  // `j` is declared before the bounds test, but anything indexed by it
  // must stay inside: its level is the guarded scope's.
  laneLevel = w.depth();
  int j = w.addVar("j", length, laneLevel);
  IndexExpr e = IndexExpr::variable(w.vars(), rowVar) * length +
                IndexExpr::variable(w.vars(), j);
  if (withArrays)
    for (auto &[value, array] : rowArrays)
      w.remember(value, ve->keyOf(value, ve->coordsOf(e, shapeOf(value))),
                 CExpr{array + "[k]", laneLevel});
  return e;
}

FailureOr<IndexExpr> RowKernelEmitter::loadAhead(ArrayRef<Value> values) {
  int64_t stride = warpPerRow ? 32 : threads;
  int64_t chunk = std::min(unroll, perThread);
  // Element k0 + u of the thread is j = lane + stride * (k0 + u); j < length
  // also keeps k0 + u below perThread (stride * perThread >= length).
  bool guard = length % stride != 0 || perThread % chunk != 0;
  w.push(fmt::format("#pragma unroll 1\nfor (int k0 = 0; k0 < {}; k0 += {}) "
                     "{{",
                     perThread, chunk),
         "}");
  lanesLevel = w.depth();
  SmallVector<std::string> arrays;
  for (Value v : values) {
    arrays.push_back(w.fresh("ahead"));
    w.line(fmt::format("{} {}[{}];", computeType(elementTypeOf(v)),
                       arrays.back(), chunk));
  }
  auto openChunk = [&]() {
    w.push(fmt::format("#pragma unroll\nfor (int u = 0; u < {}; ++u) {{",
                       chunk),
           "}");
    w.line(fmt::format("[[maybe_unused]] const {} j = {} + {} * (k0 + u);",
                       info.indexType, laneId, stride));
    if (guard)
      w.push(fmt::format("if (j < {}) {{", length), "}");
    laneLevel = w.depth();
    int j = w.addVar("j", length, laneLevel);
    return IndexExpr::variable(w.vars(), rowVar) * length +
           IndexExpr::variable(w.vars(), j);
  };
  IndexExpr e = openChunk();
  for (auto [v, array] : llvm::zip(values, arrays)) {
    FailureOr<CExpr> xv = ve->emit(v, ve->coordsOf(e, shapeOf(v)));
    if (failed(xv))
      return failure();
    w.line(fmt::format("{}[u] = {};", array, xv->code));
  }
  if (guard)
    w.pop();
  w.pop();
  e = openChunk();
  for (auto [v, array] : llvm::zip(values, arrays))
    w.remember(v, ve->keyOf(v, ve->coordsOf(e, shapeOf(v))),
               CExpr{array + "[u]", laneLevel});
  lanePushes = guard ? 3 : 2;
  chunkedLanes = true;
  return e;
}

SmallVector<Value> RowKernelEmitter::rowShapedOperands(Operation *op) {
  // Those with as many elements as the rows and the rows' shape, the one
  // of highest rank among them: with one row, a [length] operand (a
  // layer_norm weight beside a [1, length] x) has as many elements but is
  // read at other coordinates.
  SmallVector<Value> out;
  ArrayRef<int64_t> rowShape;
  for (Value v : op->getOperands())
    if (numElements(shapeOf(v)) == rows * length &&
        shapeOf(v).size() > rowShape.size())
      rowShape = shapeOf(v);
  for (Value v : op->getOperands())
    if (numElements(shapeOf(v)) == rows * length && shapeOf(v) == rowShape)
      out.push_back(v);
  return out;
}

void RowKernelEmitter::closeLanes() {
  // Register arrays stay registers only in a fully unrolled loop. A pass
  // that touches none gains little from unrolling but live ranges: with a
  // fused prologue's divisions or square roots (IEEE slow paths that ptxas
  // emits as calls), what is live across a call is spilled around it, even
  // at 32 registers. Such passes keep one iteration's values live.
  if (!chunkedLanes && !w.contains(lanesLevel, "[k]"))
    w.setHeader(lanesLevel,
                fmt::format("#pragma unroll 1\nfor (int k = 0; k < {}; ++k) {{",
                            perThread));
  for (int p = 0; p < lanePushes; ++p)
    w.pop();
  chunkedLanes = false;
}

std::string RowKernelEmitter::allReduce(const std::string &acc, Combine combine,
                                        const std::string &type) {
  const char *op = combine == Combine::Sum ? "tfc_sum_op()" : "tfc_max_op()";
  if (warpPerRow)
    return fmt::format("{0} = tfc_warp_allreduce({0}, {1});", acc, op);
  std::string shm = "tfc_shm_" + type;
  for (char &c : shm)
    if (c == ' ')
      c = '_';
  if (sharedTypes.insert(type).second)
    w.lineAt(0, fmt::format("__shared__ {} {}[32];", type, shm));
  return fmt::format("{0} = tfc_block_allreduce({0}, {1}, {2});", acc, op, shm);
}

FailureOr<std::string>
RowKernelEmitter::reduce(Value x, Combine combine, Type accType,
                         llvm::function_ref<std::string(StringRef)> term) {
  std::string type = computeType(accType);
  std::string acc = w.fresh("acc");
  std::string init;
  if (combine == Combine::Sum)
    init = isa<FloatType>(accType) ? floatLiteral(accType, 0.0)
                                   : intLiteral(accType, 0);
  else
    init = isa<FloatType>(accType)
               ? floatLiteral(accType, -INFINITY)
               : intLiteral(accType,
                            accType.isInteger(32) ? INT32_MIN : INT64_MIN);
  w.line(fmt::format("{} {} = {};", type, acc, init));
  FailureOr<IndexExpr> e = openLanes(/*withArrays=*/true, {x});
  if (failed(e))
    return failure();
  FailureOr<CExpr> xv = ve->emit(x, ve->coordsOf(*e, shapeOf(x)));
  if (failed(xv))
    return failure();
  std::string t = term(xv->code);
  w.line(combine == Combine::Sum
             ? fmt::format("{} = {};", acc,
                           wrappingArith(accType, '+', acc, "(" + t + ")"))
             : fmt::format("{0} = tfc_max({0}, ({1})({2}));", acc, type, t));
  closeLanes();
  w.line(allReduce(acc, combine, type));
  return acc;
}

LogicalResult RowKernelEmitter::materialize(Value x, bool wanted) {
  // A fused prologue with slow-path calls is recomputed in every pass
  // rather than held: the array's registers would be live across the calls
  // of a fully unrolled loop.
  if (!wanted || rowArrays.count(x) || callsSlowPaths(x))
    return success();
  // Constants and indices cost nothing to recompute; an array of them only
  // takes registers (and spills next to slow-path calls).
  if (!readsMemory(x))
    return success();
  Type ct = elementTypeOf(x);
  // f64 math (exp, log, division) is long inline code with slow-path calls;
  // with several reductions fused, f64 rows held in registers across it
  // spill. Such kernels re-read their rows.
  if (ct.isF64() && anchors.size() > 1)
    return success();
  int64_t cost = perThread * (storageBytes(ct) == 8 ? 2 : 1);
  // Dropout's Philox rounds are long integer code with a state of their
  // own; fully unrolled over the lanes, ptxas overlaps them and their state
  // competes with the array (a 7600-wide cross-entropy row at 512 threads,
  // 15 lanes, spilled): such a prologue counts three registers per lane.
  if (computesPhilox(x))
    cost *= 3;
  if (cost > registersLeft)
    return success(); // re-read in every pass instead
  registersLeft -= cost;
  std::string array = w.fresh("x");
  w.line(fmt::format("{} {}[{}];", computeType(ct), array, perThread));
  FailureOr<IndexExpr> e = openLanes();
  if (failed(e))
    return failure();
  FailureOr<CExpr> xv = ve->emit(x, ve->coordsOf(*e, shapeOf(x)));
  if (failed(xv))
    return failure();
  w.line(fmt::format("{}[k] = {};", array, xv->code));
  closeLanes();
  rowArrays[x] = array;
  return success();
}

FailureOr<std::pair<std::string, std::string>>
RowKernelEmitter::softmaxStatistics(Value x, Type accType) {
  auto known = softmaxStats.find(x);
  if (known != softmaxStats.end())
    return known->second;
  if (!rowArrays.count(x)) {
    // The row is re-read from memory in every pass: the online form reads
    // it once for both statistics (DeviceLibrary.cpp, tfc_softmax_update).
    std::string type = computeType(accType);
    std::string m = w.fresh("acc"), s = w.fresh("acc");
    w.line(fmt::format("{} {} = {}, {} = {};", type, m,
                       floatLiteral(accType, -INFINITY), s,
                       floatLiteral(accType, 0.0)));
    FailureOr<IndexExpr> e = openLanes(/*withArrays=*/true, {x});
    if (failed(e))
      return failure();
    FailureOr<CExpr> xv = ve->emit(x, ve->coordsOf(*e, shapeOf(x)));
    if (failed(xv))
      return failure();
    w.line(fmt::format("tfc_softmax_update({}, {}, ({})({}));", m, s, type,
                       xv->code));
    closeLanes();
    if (warpPerRow) {
      w.line(fmt::format("tfc_warp_softmax_allreduce({}, {});", m, s));
    } else {
      std::string shm = "tfc_shm_softmax_" + type;
      if (sharedTypes.insert("softmax " + type).second)
        w.lineAt(0, fmt::format("__shared__ {} {}[64];", type, shm));
      w.line(fmt::format("tfc_block_softmax_allreduce({}, {}, {});", m, s,
                         shm));
    }
    return softmaxStats[x] = {m, s};
  }
  FailureOr<std::string> m =
      reduce(x, Combine::Max, accType, [](StringRef v) { return v.str(); });
  if (failed(m))
    return failure();
  std::string ex = accType.isF64() ? "exp" : "expf";
  FailureOr<std::string> s =
      reduce(x, Combine::Sum, accType, [&](StringRef v) {
        return fmt::format("{}({} - {})", ex, v.str(), *m);
      });
  if (failed(s))
    return failure();
  return softmaxStats[x] = {*m, *s};
}
