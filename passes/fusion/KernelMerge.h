//===- KernelMerge.h - merging tfc.fusion kernels ---------------*- C++ -*-===//
//
// The one primitive the fusion rules build on: merge a group of tfc.fusion
// ops of one function body into a single tfc.fusion, if the result is a
// kernel the rules accept (verifyKernelOps) and no cycle forms; plus the
// queries the rules ask of the kernel graph (who reads a kernel's results,
// how many bytes a value has). tfc.reshape ops between kernels are views
// (bufferization aliases them): the queries look through them and a merge
// clones them into the body.
//
//===----------------------------------------------------------------------===//

#ifndef TFC_PASSES_FUSION_KERNELMERGE_H
#define TFC_PASSES_FUSION_KERNELMERGE_H

#include "dialects/tfc/TfcOps.h"
#include "passes/fusion/ProgramOrder.h"

#include "llvm/ADT/SmallVector.h"

#include <optional>

namespace tfc::fusion {

/// Bounds on what one merged kernel may hold, so that fusion never builds a
/// kernel too large to compile without spilling or to pass as parameters.
struct MergeLimits {
  unsigned maxOps = 128;
  unsigned maxInputs = 32;
  /// Inputs plus outputs: kernel parameters are pointers, 4 KiB of them at
  /// most.
  unsigned maxParams = 64;

  /// Ops one loop of a multi-tensor kernel holding whole-tensor sums may
  /// compute (0: no bound). Its tensors of one element count share a loop,
  /// so the pointwise work before their sums (a loss's elementwise math)
  /// adds up in one thread's registers, as in a pointwise kernel (ten
  /// igamma losses over one shape made ptxas spill 2.8 KB). Updates keep
  /// the whole maxOps: each optimizer rule is small and independent.
  unsigned maxSumLoopOps = 0;

  /// Ops between the members that depend on them, hence move after the
  /// merged kernel, that a merge may move. A merge that delays more of the
  /// program than this is not worth its saved round trip (it would
  /// also hold everything those ops read alive longer), and nearly always
  /// fails anyway: the members are a forward value's reader and a backward
  /// one that depends on what the first feeds. The bound also keeps each
  /// try's cost independent of the program's length.
  unsigned maxMovedOps = 256;

  /// The limits of a kernel of `kind`. A multi-tensor kernel exists to
  /// update many tensors in one launch: its bound is the parameter space.
  static MergeLimits of(mlir::tfc::KernelKind kind) {
    if (kind == mlir::tfc::KernelKind::multi_tensor)
      return {/*maxOps=*/1024, /*maxInputs=*/480, /*maxParams=*/480,
              /*maxSumLoopOps=*/MergeLimits().maxOps};
    return {};
  }
};

/// The value a chain of reshapes views (the value itself if none).
mlir::Value viewRoot(mlir::Value value);

/// The kernels that read the results of a fusion.
struct Readers {
  /// Fusions reading a result directly or through reshape views, each once,
  /// in program order.
  llvm::SmallVector<mlir::tfc::FusionOp> kernels;
  /// Whether some result is also read by something that is not a fusion
  /// (the function's return, another op), so it must stay in memory.
  bool external = false;
};
Readers readersOf(mlir::tfc::FusionOp fusion, ProgramOrder &order);

/// The fusions that read `value` (directly or through reshape views), each
/// once, in program order.
llvm::SmallVector<mlir::tfc::FusionOp> kernelsReading(mlir::Value value,
                                                      ProgramOrder &order);

/// The kernel kind a kernel of kind `a` merged with one of kind `b` has, or
/// std::nullopt when fusion does not merge them: equal kinds keep their
/// kind, pointwise ops join any other kind, a column reduction joins a row
/// reduction as a sum over its rows (when the kernel rules accept it); GEMM
/// and block-quantized kernels are never merged.
std::optional<mlir::tfc::KernelKind> combinedKind(mlir::tfc::KernelKind a,
                                                  mlir::tfc::KernelKind b);

/// Bytes of a tensor value as stored in memory.
int64_t bytesOf(mlir::Value value);
/// Elements a kernel iterates over: its largest output for pointwise and
/// gather kernels, its anchors' input for reductions.
int64_t iterationSize(mlir::tfc::FusionOp fusion);
/// Elements of the results of `producer` that `reader` reads (directly or
/// through reshape views), each result counted once.
int64_t elementsPassed(mlir::tfc::FusionOp producer,
                       mlir::tfc::FusionOp reader);
/// Ops in the body of `fusion` (without the terminator).
unsigned opCount(mlir::tfc::FusionOp fusion);

/// Merges `members` (fusions of one block, any order) into one tfc.fusion of
/// `kind` placed where the last of them was. The members in `duplicated`
/// are cloned into the merged kernel but kept for their other readers (their
/// results are never outputs of the merged kernel; a duplicated member left
/// without readers is erased). Every other member's result that something
/// outside the group still reads becomes an output of the merged kernel;
/// the ops between the members that depend on them move after it.
///
/// Fails, leaving the IR untouched, when the merged body breaks the kernel
/// rules or MergeLimits::of(kind), or when an op outside the group both depends on a
/// member and feeds another (the merge would form a cycle), or when
/// `accept` (when given) rejects the merged body: it sees the body, the
/// values outside that its arguments bind and the member results its
/// outputs replace. With `dryRun` only checks, and returns a null FusionOp
/// on success.
using MergeCheck = llvm::function_ref<mlir::LogicalResult(
    mlir::Block &body, llvm::ArrayRef<mlir::Value> inputs,
    llvm::ArrayRef<mlir::Value> outputs)>;
mlir::FailureOr<mlir::tfc::FusionOp>
mergeKernels(llvm::ArrayRef<mlir::tfc::FusionOp> members,
             llvm::ArrayRef<mlir::tfc::FusionOp> duplicated,
             mlir::tfc::KernelKind kind, ProgramOrder &order,
             bool dryRun = false, MergeCheck accept = {});

} // namespace tfc::fusion

#endif // TFC_PASSES_FUSION_KERNELMERGE_H
