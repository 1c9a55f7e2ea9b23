//===- SortKernel.cpp - stable row sorts ----------------------------------===//
//
// tfc.sort: each row (last dim, n elements) sorted under
// tfc::scalar::sortsBefore (common/ScalarOps.h), the host's comparator. One
// thread block per row (blocks stride over the rows) runs a bitonic network
// over (key, position) pairs. Positions make every pair distinct, so the
// network's result is the one permutation the order defines: the host's
// stable sort, bit for bit, with NaN and -0.0/+0.0 placed alike.
//
// The row is padded to P = the next power of two with virtual sentinels
// that sort after everything: the network is written with every comparator
// putting the earlier pair at the lower position (the first stage of each
// merge compares mirrored positions instead of alternating directions), so
// a sentinel never moves below n and a comparator whose upper position is
// >= n is skipped; nothing is stored for the padding. Short rows
// (P (key + position) bytes within kSortSharedBytes) are sorted in shared
// memory and stored once; longer ones in place in the two outputs (the
// values' storage type holds every key exactly), whatever their length.
// Cost: log2(P) (log2(P) + 1) / 2 passes of P / 2 comparators a row.
//
//===----------------------------------------------------------------------===//

#include "compiler/codegen/cuda/KernelEmitters.h"
#include "compiler/codegen/cuda/ValueEmitter.h"

#include "dialects/tfc/TfcOps.h"

#include <fmt/format.h>

using namespace mlir;
using namespace mlir::tfc;
using namespace mlir::tfc::cuda;

/// Shared memory a short row may use (keys and positions), within the 48 KiB
/// of static shared memory a block may declare.
static constexpr int64_t kSortSharedBytes = 32 * 1024;

FailureOr<CudaKernel> mlir::tfc::cuda::emitSortKernel(KernelInfo &info) {
  // The kernel rules guarantee one sort, alone, whose results are the
  // outputs.
  auto op = findKernelOp<SortOp>(info);
  if (!op)
    return emitError(info.terminator->getLoc())
           << "codegen: a sort kernel needs a tfc.sort op";
  auto input = dyn_cast<BlockArgument>(op.getX());
  if (!input)
    return op.emitError() << "codegen: a sort kernel reads its operand from "
                             "memory (a kernel input)";
  int valuesOut = -1, indicesOut = -1;
  for (auto [k, out] : llvm::enumerate(info.outputs)) {
    if (out == op.getValues() && valuesOut < 0)
      valuesOut = int(k);
    if (out == op.getIndices() && indicesOut < 0)
      indicesOut = int(k);
  }
  if (valuesOut < 0 || indicesOut < 0)
    return op.emitError() << "codegen: a sort kernel writes both results of "
                             "tfc.sort (its outputs are the sort's scratch)";

  Type et = elementTypeOf(op.getX());
  std::string key = computeType(et);
  ArrayRef<int64_t> shape = shapeOf(op.getX());
  int64_t n = shape.back();
  int64_t rows = n == 0 ? 0 : numElements(shape) / n;
  int64_t padded = 1;
  while (padded < n)
    padded *= 2;
  int64_t keyBytes = et.isF64() || et.isInteger(64) ? 8 : 4;
  bool shared = padded * (keyBytes + 8) <= kSortSharedBytes;
  info.needs.scalarOps = true;

  KernelScheduleAttr schedule = info.schedule;
  int64_t threads = schedule.getThreads();
  int64_t blocks =
      std::clamp<int64_t>(rows, 1, maxGridBlocks(schedule));
  CudaKernel kernel;
  kernel.grid = {blocks, 1, 1};
  kernel.block = {threads, 1, 1};
  KernelWriter w;
  if (rows == 0) {
    kernel.source = assembleSource(info, w, threads, "sort of no elements");
    return kernel;
  }

  const char *idx = "long long";
  std::string values = fmt::format("out{}", valuesOut);
  std::string positions = fmt::format("out{}", indicesOut);
  // Where the network reads and writes pair i of the row.
  auto keyAt = [&](StringRef i) {
    return shared ? fmt::format("tfc_keys[{}]", i.str())
                  : loadConversion(et, fmt::format("{}[base + {}]", values,
                                                   i.str()));
  };
  auto setKey = [&](StringRef i, StringRef v) {
    return shared ? fmt::format("tfc_keys[{}] = {};", i.str(), v.str())
                  : fmt::format("{}[base + {}] = {};", values, i.str(),
                                storeConversion(et, v));
  };
  auto posAt = [&](StringRef i) {
    return shared ? fmt::format("tfc_pos[{}]", i.str())
                  : fmt::format("{}[base + {}]", positions, i.str());
  };
  std::string before =
      fmt::format("tfc::scalar::sortsBefore<{}>", key);
  std::string descending = op.getDescending() ? "true" : "false";

  if (shared) {
    w.line(fmt::format("__shared__ {} tfc_keys[{}];", key, padded));
    w.line(fmt::format("__shared__ long long tfc_pos[{}];", padded));
  }
  w.push(fmt::format("for ({0} row = blockIdx.x; row < {1}; row += "
                     "gridDim.x) {{",
                     idx, rows),
         "}");
  w.line(fmt::format("const {} base = row * {};", idx, n));
  w.push(fmt::format("for ({} i = threadIdx.x; i < {}; i += blockDim.x) {{",
                     idx, n),
         "}");
  w.line(setKey("i", loadConversion(et, fmt::format("in{}[base + i]",
                                                      input.getArgNumber()))));
  w.line(fmt::format("{} = i;", posAt("i")));
  w.pop();
  w.line("__syncthreads();");
  // Merges of sorted runs of k / 2 into runs of k: the mirrored stage
  // (j = k / 2), then half-cleaners of stride j.
  w.push(fmt::format("for ({0} k = 2; k <= {1}; k <<= 1) {{", idx, padded),
         "}");
  w.push(fmt::format("for ({} j = k >> 1; j > 0; j >>= 1) {{", idx), "}");
  w.push(fmt::format("for ({} t = threadIdx.x; t < {}; t += blockDim.x) {{",
                     idx, padded / 2),
         "}");
  w.line(fmt::format("const {} lo = (t / j) * 2 * j + t % j;", idx));
  w.line(fmt::format("const {} hi = j == (k >> 1) ? (t / j) * 2 * j + 2 * j "
                     "- 1 - t % j : lo + j;",
                     idx));
  w.push(fmt::format("if (hi < {}) {{", n), "}");
  w.line(fmt::format("const {} a = {}, b = {};", key, keyAt("lo"),
                     keyAt("hi")));
  w.line(fmt::format("const long long pa = {}, pb = {};", posAt("lo"),
                     posAt("hi")));
  w.push(fmt::format("if ({}(b, pb, a, pa, {})) {{", before, descending),
         "}");
  w.line(setKey("lo", "b"));
  w.line(setKey("hi", "a"));
  w.line(fmt::format("{} = pb;", posAt("lo")));
  w.line(fmt::format("{} = pa;", posAt("hi")));
  w.pop();
  w.pop();
  w.pop(); // comparators
  w.line("__syncthreads();");
  w.pop(); // j
  w.pop(); // k
  if (shared) {
    w.push(fmt::format("for ({} i = threadIdx.x; i < {}; i += blockDim.x) {{",
                       idx, n),
           "}");
    w.line(storeOutput(info, valuesOut, "base + i", "tfc_keys[i]"));
    w.line(storeOutput(info, indicesOut, "base + i", "tfc_pos[i]"));
    w.pop();
    // The next row reuses the shared arrays.
    w.line("__syncthreads();");
  }
  w.pop(); // row

  std::string summary = fmt::format(
      "sort{} of {} rows of {}: a block per row, a bitonic network over {} "
      "(position, key) pairs in {} memory, {} blocks of {}",
      op.getDescending() ? " descending" : "", rows, n, padded,
      shared ? "shared" : "global", blocks, threads);
  kernel.source = assembleSource(info, w, threads, summary);
  return kernel;
}
