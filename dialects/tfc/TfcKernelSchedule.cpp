//===- TfcKernelSchedule.cpp - how a kernel is launched on a target -------===//

#include "dialects/tfc/TfcKernelSchedule.h"

#include "dialects/tfc/TfcInterfaces.h"
#include "dialects/tfc/TfcKernelRules.h"
#include "dialects/tfc/TfcOps.h"

#include <algorithm>

using namespace mlir;
using namespace mlir::tfc;

namespace {
/// Threads per block of the kernels without a reason to differ.
constexpr int64_t kBlockThreads = 256;
/// Rows (warps) per block of a warp-per-row row_reduction.
constexpr int64_t kWarpRowsPerBlock = 8;
/// Elements of a row a thread holds at most before a block-per-row kernel
/// takes more threads.
constexpr int64_t kRowElementsPerThread = 16;
/// Elements a thread of a block-per-row row_reduction loads before it uses
/// the first, in a pass that re-reads its rows: a long row is reduced by
/// a loop whose step depends on the loaded value (the online softmax
/// update branches on it), so one element at a time leaves one load in
/// flight per thread, 8 KiB per multiprocessor at 2048 threads, about a
/// quarter of what hides HBM latency on an H100 (its 50304-wide
/// cross-entropy ran at 27% of the copy rate). Four keep 32 KiB in flight
/// for 4 more registers per operand read.
constexpr int64_t kBlockRowUnroll = 4;
/// CUDA's grid.x cap for row kernels (one block per row, or per 8 rows).
constexpr int64_t kMaxRowBlocks = 65535;
/// Blocks of a kernel whose last block combines one partial per block (a
/// loss, column sums, whole-tensor sums): that stage is sequential.
constexpr int64_t kMaxCombinedBlocks = 512;
/// Blocks of a multi_tensor launch (grid-stride over every tensor).
constexpr int64_t kMaxMultiTensorBlocks = 4096;
/// Waves of resident blocks a pointwise grid covers before it strides.
constexpr int64_t kPointwiseWaves = 8;
/// Waves of blocks a column reduction aims for when it splits its rows.
constexpr int64_t kColumnReductionWaves = 4;
/// Row groups of a column_reduction block.
constexpr int64_t kColumnRowGroups = 8;

int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

/// Resident blocks of `threads` threads per multiprocessor.
int64_t residentBlocks(const TargetDescription &t, int64_t threads) {
  return std::max<int64_t>(1, t.threadsPerMultiprocessor / threads);
}

Operation *firstWithRole(Block &body, KernelRole role) {
  for (Operation &op : body.without_terminator())
    if (auto r = dyn_cast<KernelRoleOpInterface>(op);
        r && r.getKernelRole() == role)
      return &op;
  return nullptr;
}
} // namespace

const TargetDescription &mlir::tfc::describeTarget(KernelTarget target) {
  static const TargetDescription sm80{KernelTarget::sm_80, 108, 2048, 65536,
                                      16};
  static const TargetDescription sm90{KernelTarget::sm_90, 132, 2048, 65536,
                                      16};
  static const TargetDescription host{KernelTarget::host, 0, 0, 0, 0};
  switch (target) {
  case KernelTarget::sm_80:
    return sm80;
  case KernelTarget::sm_90:
    return sm90;
  case KernelTarget::host:
    return host;
  }
  llvm_unreachable("unknown kernel target");
}

std::optional<KernelTarget> mlir::tfc::parseKernelTarget(llvm::StringRef name) {
  return symbolizeKernelTarget(name);
}

std::string mlir::tfc::kernelTargetNames() {
  // From the enum, so a new target shows up in every message.
  std::string names;
  uint32_t last = getMaxEnumValForKernelTarget();
  for (uint32_t i = 0; i <= last; ++i) {
    if (i > 0)
      names += i == last ? " or " : ", ";
    names += stringifyKernelTarget(static_cast<KernelTarget>(i)).str();
  }
  return names;
}

KernelScheduleAttr mlir::tfc::chooseKernelSchedule(MLIRContext *context,
                                                   KernelKind kind,
                                                   Block &body,
                                                   KernelTarget target,
                                                   int64_t rowUnroll) {
  const TargetDescription &t = describeTarget(target);
  auto make = [&](int64_t threads, int64_t rowsPerBlock, int64_t vectorBytes,
                  int64_t maxBlocks, int64_t unroll = 1) {
    return KernelScheduleAttr::get(context, target, threads, rowsPerBlock,
                                   vectorBytes, maxBlocks, unroll);
  };
  if (target == KernelTarget::host)
    return make(0, 1, 0, 0);
  switch (kind) {
  case KernelKind::pointwise:
  case KernelKind::gather:
    return make(kBlockThreads, 1, t.vectorBytes,
                t.multiprocessors * residentBlocks(t, kBlockThreads) *
                    kPointwiseWaves);
  case KernelKind::row_reduction: {
    Operation *anchor = firstWithRole(body, KernelRole::RowReduction);
    RowGeometry geometry =
        anchor ? cast<KernelRoleOpInterface>(anchor).getRowGeometry()
               : RowGeometry{1, 1};
    bool combined = false;
    for (Operation &op : body.without_terminator()) {
      auto role = dyn_cast<KernelRoleOpInterface>(op);
      combined |= isa<CrossEntropyOp>(op) ||
                  (role && role.getKernelRole() == KernelRole::ColumnReduction);
    }
    int64_t maxBlocks = combined ? kMaxCombinedBlocks : kMaxRowBlocks;
    if (geometry.rowLength <= 1024)
      return make(32 * kWarpRowsPerBlock, kWarpRowsPerBlock, 0, maxBlocks);
    int64_t threads = 128;
    while (threads < 1024 &&
           ceilDiv(geometry.rowLength, threads) > kRowElementsPerThread)
      threads *= 2;
    return make(threads, 1, 0, maxBlocks,
                rowUnroll > 0 ? rowUnroll : kBlockRowUnroll);
  }
  case KernelKind::column_reduction:
    return make(kColumnReductionBlockColumns * kColumnRowGroups, kColumnRowGroups, 0,
                t.multiprocessors * kColumnReductionWaves);
  case KernelKind::multi_tensor: {
    bool sums = llvm::any_of(body.without_terminator(),
                             [](Operation &op) { return isTensorSum(&op); });
    return make(kBlockThreads, 1, 0,
                sums ? kMaxCombinedBlocks : kMaxMultiTensorBlocks);
  }
  case KernelKind::block_quantized: {
    int64_t threads = kBlockThreads;
    for (Operation &op : body.without_terminator())
      if (auto update = dyn_cast<AdamW8bitOp>(op))
        threads = update.getBlockSize();
    return make(threads, 1, 0, 0);
  }
  case KernelKind::scatter:
    // A warp per table row, as the short rows of a row_reduction.
    return make(32 * kWarpRowsPerBlock, kWarpRowsPerBlock, 0, kMaxRowBlocks);
  case KernelKind::sort: {
    // A block per row, blocks striding over the rows; rows past the
    // shared-memory network (2048 elements) get the largest block, which
    // shares out their log^2 passes over global memory.
    int64_t length = 1;
    for (Operation &op : body.without_terminator())
      if (auto sort = dyn_cast<SortOp>(op))
        length = sort.getX().getType().getShape().back();
    return make(length > 2048 ? 1024 : kBlockThreads, 1, 0, kMaxRowBlocks);
  }
  case KernelKind::gemm:
    return {};
  }
  llvm_unreachable("unknown kernel kind");
}

LogicalResult mlir::tfc::verifyKernelSchedule(
    KernelKind kind, Block &body, KernelScheduleAttr schedule,
    function_ref<InFlightDiagnostic()> emitError) {
  if (schedule.getTarget() == KernelTarget::host)
    return success();
  if (kind == KernelKind::gemm)
    return emitError() << "a gemm kernel runs on cuBLASLt and takes no "
                          "schedule";
  int64_t threads = schedule.getThreads();
  int64_t rowsPerBlock = schedule.getRowsPerBlock();
  if (kind != KernelKind::row_reduction && schedule.getUnroll() != 1)
    return emitError() << "unroll applies to row_reduction kernels; a "
                       << stringifyKernelKind(kind)
                       << " kernel's must be 1, got " << schedule.getUnroll();
  switch (kind) {
  case KernelKind::row_reduction: {
    bool warpPerRow = isWarpPerRow(schedule);
    if (!warpPerRow && rowsPerBlock != 1)
      return emitError() << "a row_reduction schedule walks one row per warp "
                            "(threads = 32 * rows_per_block) or per block "
                            "(rows_per_block = 1); got threads = "
                         << threads << ", rows_per_block = " << rowsPerBlock;
    if (!warpPerRow && firstWithRole(body, KernelRole::ColumnReduction))
      return emitError() << "column sums over the rows of a row_reduction "
                            "need one warp per row (threads = 32 * "
                            "rows_per_block)";
    return success();
  }
  case KernelKind::column_reduction:
    if (threads != kColumnReductionBlockColumns * rowsPerBlock)
      return emitError() << "a column_reduction block is "
                         << kColumnReductionBlockColumns
                         << " columns x rows_per_block row groups: threads "
                            "must be "
                         << kColumnReductionBlockColumns * rowsPerBlock
                         << ", got "
                         << threads;
    return success();
  case KernelKind::scatter:
    if (threads != 32 * rowsPerBlock)
      return emitError() << "a scatter kernel walks one table row per warp: "
                            "threads must be 32 * rows_per_block = "
                         << 32 * rowsPerBlock << ", got " << threads;
    return success();
  case KernelKind::block_quantized:
    for (Operation &op : body.without_terminator())
      if (auto update = dyn_cast<AdamW8bitOp>(op);
          update && int64_t(update.getBlockSize()) != threads)
        return emitError() << "a block_quantized kernel runs one thread per "
                              "element of a quantization block: threads must "
                              "be the block_size "
                           << update.getBlockSize() << ", got " << threads;
    return success();
  default:
    if (rowsPerBlock != 1)
      return emitError() << "rows_per_block applies to row and column "
                            "reductions; a "
                         << stringifyKernelKind(kind)
                         << " kernel's must be 1, got " << rowsPerBlock;
    return success();
  }
}

LogicalResult
KernelScheduleAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                           KernelTarget target, int64_t threads,
                           int64_t rowsPerBlock, int64_t vectorBytes,
                           int64_t maxBlocks, int64_t unroll) {
  if (target == KernelTarget::host) {
    if (threads != 0 || rowsPerBlock != 1 || vectorBytes != 0 ||
        maxBlocks != 0 || unroll != 1)
      return emitError() << "a host schedule has no launch parameters (the "
                            "host interpreter runs a kernel as one loop)";
    return success();
  }
  if (threads < 32 || threads > 1024 || threads % 32 != 0)
    return emitError() << "threads must be a multiple of 32 in [32, 1024], "
                          "got "
                       << threads;
  if (rowsPerBlock < 1 || rowsPerBlock > threads)
    return emitError() << "rows_per_block must be in [1, threads], got "
                       << rowsPerBlock;
  if (vectorBytes != 0 && vectorBytes != 4 && vectorBytes != 8 &&
      vectorBytes != 16)
    return emitError() << "vector_bytes must be 0 (scalar), 4, 8 or 16, got "
                       << vectorBytes;
  if (maxBlocks < 0 || maxBlocks > 0x7fffffff)
    return emitError() << "max_blocks must be in [0, 2^31), got " << maxBlocks;
  if (unroll < 1 || unroll > kMaxScheduleUnroll)
    return emitError() << "unroll must be in [1, " << kMaxScheduleUnroll
                       << "], got " << unroll;
  return success();
}
