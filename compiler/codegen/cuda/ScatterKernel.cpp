//===- ScatterKernel.cpp - deterministic scatter-add kernels --------------===//
//
// tfc.embedding_grad: dtable[v] = sum of dy[i] over the positions i with
// ids[i] == v. One warp per table row v (rows_per_block warps per block,
// blocks striding over the rows): the warp reads the ids 32 at a time,
// __ballot_sync gives the positions that hold v, and the warp adds those dy
// rows in increasing position order, each lane owning the columns
// lane + 32 k. The sum starts from zero in the compute type (float for
// f16/bf16/f32, double for f64) and is stored once: no float atomics, the
// same bits on every run, and the order of the host interpreter's
// embedding_grad, so both backends agree bit for bit. Every table row is
// written once (zeros where no id matches; ids outside [0, V) match no
// row). A row wider than 32 * kScatterAccumulators = 1024 columns is done
// in passes, each scanning the ids again.
//
// Cost: V x (passes) x N id reads (from L1/L2: the N ids are shared by all
// warps), N x D dy reads and V x D writes; against the one-hot GEMM it
// replaces (2 N V D flops, an N x V one-hot), a few memory passes.
//
//===----------------------------------------------------------------------===//

#include "compiler/codegen/cuda/KernelEmitters.h"
#include "compiler/codegen/cuda/ValueEmitter.h"

#include "dialects/tfc/TfcOps.h"

#include <fmt/format.h>

using namespace mlir;
using namespace mlir::tfc;
using namespace mlir::tfc::cuda;

/// Accumulators a lane holds per pass over the ids (registers: 32 floats or
/// 64 registers of doubles beside a few indices, far below the 255 the
/// launch bounds leave), so rows of up to 1024 columns (gpt2-small's 768)
/// scan the ids once.
static constexpr int64_t kScatterAccumulators = 32;

FailureOr<CudaKernel> mlir::tfc::cuda::emitScatterKernel(KernelInfo &info) {
  // The kernel rules (checked before any emitter runs) guarantee one
  // embedding_grad whose result is every output.
  auto op = findKernelOp<EmbeddingGradOp>(info);
  if (!op)
    return emitError(info.terminator->getLoc())
           << "codegen: a scatter kernel needs a tfc.embedding_grad op";

  KernelWriter w;
  ValueEmitter ve(w, *info.body, info.indexType);
  ve.anchorHook = [&](OpResult r, ArrayRef<IndexExpr>) -> FailureOr<CExpr> {
    return r.getOwner()->emitError()
           << "codegen: a scatter kernel cannot read its own result";
  };
  const std::string &idx = info.indexType;
  ArrayRef<int64_t> dyShape = shapeOf(op.getDy());
  ArrayRef<int64_t> idsShape = shapeOf(op.getIds());
  ArrayRef<int64_t> tableShape = shapeOf(op.getDtable());
  int64_t n = numElements(idsShape);
  int64_t vocab = tableShape[0], width = tableShape[1];
  std::string acc = computeType(elementTypeOf(op.getDy()));

  // Columns per lane and pass: as few passes as the accumulator budget
  // allows, spread evenly.
  int64_t columnsPerLane = std::max<int64_t>(1, ceilDivide(width, 32));
  int64_t passes = ceilDivide(columnsPerLane, kScatterAccumulators);
  int64_t perLane = ceilDivide(columnsPerLane, passes);
  int64_t passWidth = 32 * perLane;

  KernelScheduleAttr schedule = info.schedule;
  int64_t threads = schedule.getThreads();
  int64_t rowsPerBlock = schedule.getRowsPerBlock();
  int64_t blocks = std::clamp<int64_t>(ceilDivide(vocab, rowsPerBlock), 1,
                                       maxGridBlocks(schedule));

  CudaKernel kernel;
  kernel.grid = {blocks, 1, 1};
  kernel.block = {threads, 1, 1};
  if (vocab == 0 || width == 0) {
    // A table without elements: nothing to write (canonicalization folds
    // this to a constant; a hand-written kernel still launches).
    kernel.source =
        assembleSource(info, w, threads, "scatter into no elements");
    return kernel;
  }

  w.line("const int lane = threadIdx.x & 31;");
  // The table row loop is uniform across a warp, so every lane reaches each
  // __ballot_sync.
  w.push(fmt::format("for ({0} row = ({0})blockIdx.x * {1} + ({0})(threadIdx.x "
                     ">> 5); row < {2}; row += ({0})gridDim.x * {1}) {{",
                     idx, rowsPerBlock, vocab),
         "}");
  w.push(fmt::format("for ({0} c0 = 0; c0 < {1}; c0 += {2}) {{", idx, width,
                     passWidth),
         "}");
  w.line(fmt::format("{} acc[{}];", acc, perLane));
  w.line(fmt::format("#pragma unroll\nfor (int k = 0; k < {}; ++k) acc[k] = 0;",
                     perLane));

  // Scan the ids 32 at a time (no ids: every row stays zero).
  if (n > 0) {
    w.push(fmt::format("for ({0} j0 = 0; j0 < {1}; j0 += 32) {{", idx, n), "}");
    w.line("bool hit = false;");
    w.line(fmt::format("const {} j = j0 + lane;", idx));
    w.push(fmt::format("if (j < {}) {{", n), "}");
    int jVar = w.addVar("j", n, w.depth());
    FailureOr<CExpr> id =
        ve.emit(op.getIds(),
                ve.coordsOf(IndexExpr::variable(w.vars(), jVar), idsShape));
    if (failed(id))
      return failure();
    w.line(fmt::format("hit = (long long)({}) == (long long)row;", id->code));
    w.pop();
    w.line("unsigned mask = __ballot_sync(0xffffffffu, hit);");
    // Matching positions in increasing order, one dy row each.
    w.push("while (mask != 0u) {", "}");
    w.line(fmt::format("const {} i = j0 + (__ffs(mask) - 1);", idx));
    int iVar = w.addVar("i", n, w.depth());
    w.line("mask &= mask - 1u;");
    // The pragma is the loop header's own line: the value emitter hoists
    // loads that do not depend on k (a table of width 1) above the loop.
    w.push(fmt::format("#pragma unroll\nfor (int k = 0; k < {}; ++k) {{",
                       perLane),
           "}");
    w.line(fmt::format("const {} d = c0 + lane + 32 * k;", idx));
    w.push(fmt::format("if (d < {}) {{", width), "}");
    int dVar = w.addVar("d", width, w.depth());
    IndexExpr linear = IndexExpr::variable(w.vars(), iVar) * width +
                       IndexExpr::variable(w.vars(), dVar);
    FailureOr<CExpr> dy = ve.emit(op.getDy(), ve.coordsOf(linear, dyShape));
    if (failed(dy))
      return failure();
    w.line(fmt::format("acc[k] += {};", dy->code));
    w.pop();
    w.pop();
    w.pop(); // while
    w.pop(); // ids
  }

  // Every table row once, matched or not.
  w.push(fmt::format("#pragma unroll\nfor (int k = 0; k < {}; ++k) {{", perLane),
         "}");
  w.line(fmt::format("const {} d = c0 + lane + 32 * k;", idx));
  w.push(fmt::format("if (d < {}) {{", width), "}");
  for (unsigned k = 0; k < info.outputs.size(); ++k)
    w.line(storeOutput(info, k, fmt::format("row * {} + d", width), "acc[k]"));
  w.pop();
  w.pop();
  w.pop(); // pass
  w.pop(); // table row

  std::string summary = fmt::format(
      "scatter embedding_grad of {} rows into {} x {}: a warp per table "
      "row, {} pass{} of {} columns over the ids, {} blocks of {}",
      n, vocab, width, passes, passes == 1 ? "" : "es", passWidth, blocks,
      threads);
  kernel.source = assembleSource(info, w, threads, summary);
  return kernel;
}
