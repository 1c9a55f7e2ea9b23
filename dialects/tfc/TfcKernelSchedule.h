//===- TfcKernelSchedule.h - how a kernel is launched on a target -*- C++ -*-===//
//
// The one place that knows launch geometry: which targets tfc schedules for
// (their multiprocessor counts and limits), the schedule a kernel of each
// kind gets on each (threads per block, rows per block, vector width, grid
// cap), and what a schedule must satisfy for codegen to emit it. The
// --tfc-schedule-kernels pass records the choice on every tfcrt.kernel as
// `#tfc.schedule<...>`; the CUDA emitters read that attribute and contain
// no tuning constants of their own. A kernel body without a schedule (a
// tfc.fusion handed to tfc-translate) is emitted with the default target's
// choice, made by the same function.
//
//===----------------------------------------------------------------------===//

#ifndef TFC_DIALECTS_TFC_TFCKERNELSCHEDULE_H
#define TFC_DIALECTS_TFC_TFCKERNELSCHEDULE_H

#include "dialects/tfc/TfcDialect.h"

#include "mlir/IR/Block.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Support/LogicalResult.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"

#include <optional>
#include <string>

namespace mlir::tfc {

/// What the schedule choice needs to know about a target.
struct TargetDescription {
  KernelTarget target;
  /// Streaming multiprocessors of the reference part (A100: 108, H100
  /// SXM: 132); 0 for the host.
  int64_t multiprocessors = 0;
  /// Resident threads per multiprocessor.
  int64_t threadsPerMultiprocessor = 0;
  /// 32-bit registers per multiprocessor.
  int64_t registersPerMultiprocessor = 0;
  /// Widest vector load/store in bytes.
  int64_t vectorBytes = 0;
};

/// Columns of a column_reduction block: one warp wide, so each row group
/// reads 32 consecutive elements (threads = 32 x rows_per_block).
constexpr int64_t kColumnReductionBlockColumns = 32;

/// The largest `unroll` of a schedule (elements a thread loads ahead).
constexpr int64_t kMaxScheduleUnroll = 16;

/// The target a kernel without a schedule is emitted for, and the default
/// of --tfc-target: sm_90 (H100).
constexpr KernelTarget kDefaultKernelTarget = KernelTarget::sm_90;

const TargetDescription &describeTarget(KernelTarget target);

/// Parses a --tfc-target value (sm_80, sm_90, host); std::nullopt for
/// anything else.
std::optional<KernelTarget> parseKernelTarget(llvm::StringRef name);
/// "sm_80, sm_90 or host", for error messages.
std::string kernelTargetNames();

/// The schedule a kernel of `kind` with body `body` (block arguments =
/// inputs, terminator = outputs; it satisfies the kernel rules) gets on
/// `target`:
///   - pointwise, gather: 256 threads, `vector_bytes` of the target, grid
///     capped at 8 waves of resident blocks;
///   - row_reduction: rows of at most 1024 elements one warp each, 8 rows
///     (256 threads) per block; longer rows one block each, with the fewest
///     threads (128 to 1024) that leave each at most 16 elements, loading
///     4 elements ahead (`unroll`) in the passes that re-read a row; grid
///     capped at 65535 blocks, at 512 when the kernel has a cross-block
///     stage (a loss, column sums) whose last block combines one partial
///     per block;
///   - column_reduction: 32 columns x 8 row groups (256 threads); the grid
///     aims at 4 waves of blocks (`max_blocks`), splitting long columns;
///   - multi_tensor: 256 threads, at most 4096 blocks, 512 with whole-tensor
///     sums (one partial per block);
///   - block_quantized: one thread per element of a quantization block
///     (the op's block_size), one block per quantization block;
///   - scatter: a warp per table row, 8 rows (256 threads) per block, grid
///     capped at 65535 blocks (blocks stride over the rows);
///   - sort: a block per row, 256 threads (1024 for rows longer than 2048),
///     grid capped at 65535 blocks (blocks stride over the rows);
///   - gemm: none (cuBLASLt chooses); the host: the target alone.
/// `rowUnroll` in [1, kMaxScheduleUnroll] replaces the unroll of block-per-
/// row row_reduction kernels (0: the choice above), for experiments and
/// A/B benchmarks (--tfc-schedule-kernels' row-unroll).
KernelScheduleAttr chooseKernelSchedule(MLIRContext *context, KernelKind kind,
                                        Block &body, KernelTarget target,
                                        int64_t rowUnroll = 0);

/// Checks that codegen can emit `body` as a kernel of `kind` launched with
/// `schedule` (beyond the attribute's own checks): a row_reduction is one
/// warp per row (threads = 32 * rows_per_block) or one block per row
/// (rows_per_block = 1), and column sums over its rows need a warp per
/// row; a column_reduction splits its threads into rows_per_block row
/// groups of 32 columns; block_quantized runs block_size threads; scatter
/// is one warp per table row (threads = 32 * rows_per_block); `unroll` is 1
/// but in a row_reduction. Reports
/// through `emitError` and fails otherwise.
LogicalResult verifyKernelSchedule(KernelKind kind, Block &body,
                                   KernelScheduleAttr schedule,
                                   function_ref<InFlightDiagnostic()> emitError);

/// Whether a row_reduction kernel with this schedule walks each row with one
/// warp (else one block per row).
inline bool isWarpPerRow(KernelScheduleAttr schedule) {
  return schedule.getThreads() == 32 * schedule.getRowsPerBlock();
}

} // namespace mlir::tfc

#endif // TFC_DIALECTS_TFC_TFCKERNELSCHEDULE_H
