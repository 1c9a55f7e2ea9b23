//===- RowKernelEmitter.h - the row-reduction kernel emitter ----*- C++ -*-===//
//
// Internal to compiler/codegen/cuda: the emitter of row-reduction kernels,
// shared by RowReductionKernel.cpp (forward anchors, geometry, the kernel
// skeleton) and RowReductionGradKernel.cpp (backward anchors).
//
//===----------------------------------------------------------------------===//

#ifndef TFC_COMPILER_CODEGEN_CUDA_ROWKERNELEMITTER_H
#define TFC_COMPILER_CODEGEN_CUDA_ROWKERNELEMITTER_H

#include "compiler/codegen/cuda/KernelEmitters.h"
#include "compiler/codegen/cuda/ValueEmitter.h"

#include "dialects/tfc/TfcOps.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"

#include <memory>
#include <set>
#include <string>

namespace mlir::tfc::cuda {

/// Registers (32-bit) a thread may spend on row arrays; more spills.
constexpr int64_t kRegisterBudget = 64;
/// The registers a lane's row arrays may take in a row kernel whose
/// pointwise math calls slow paths (RowReductionKernel.cpp).
constexpr int64_t kSlowPathArrayRegisters = 16;
/// The largest elements-per-lane x row-sized operands x row reductions of a
/// row kernel that holds row arrays (RowReductionKernel.cpp); beyond it the
/// unrolled passes spill and the kernel re-reads its rows instead.
constexpr int64_t kUnrolledRowPressure = 768;

enum class Combine { Sum, Max };

/// A cross_entropy whose per-row losses are summed over the grid.
struct LossAccumulator {
  CrossEntropyOp op;
  std::string loss, count; ///< per-thread running sums (level 0)
};

class RowKernelEmitter {
public:
  explicit RowKernelEmitter(KernelInfo &info) : info(info) {}
  FailureOr<CudaKernel> run();

private:
  LogicalResult plan();
  /// Opens the per-thread loop over the row's elements; with `withArrays`
  /// the values held in register arrays are read from them (the loop is
  /// then fully unrolled). `ahead` are the row-shaped values the pass will
  /// read: where the schedule's `unroll` is above 1 and the pass reads no
  /// register array, those that come from memory (without slow-path math)
  /// are loaded `unroll` elements ahead of their use (loadAhead).
  FailureOr<IndexExpr> openLanes(bool withArrays = true,
                                 ArrayRef<Value> ahead = {});
  /// The chunked form of openLanes: a rolled loop over chunks of `unroll`
  /// elements a thread; in each, an unrolled loop computes `values` into
  /// small arrays (their loads all issued before any is used), then a
  /// second unrolled loop, left open for the pass, reads them from there.
  FailureOr<IndexExpr> loadAhead(ArrayRef<Value> values);
  /// The operands of row anchor `op` shaped as its rows (read at the
  /// element being computed).
  SmallVector<Value> rowShapedOperands(Operation *op);
  /// Whether some op computing `value` (back to the inputs and the anchors'
  /// results) satisfies `predicate`.
  bool computedWith(Value value,
                    llvm::function_ref<bool(Operation *)> predicate);
  /// Whether computing `value` (back to the inputs and the anchors' results)
  /// involves ops whose CUDA code calls a slow path (IEEE division and
  /// square root, transcendentals, pow): what is live across such a call is
  /// spilled, so a fully unrolled loop over them must not hold row arrays.
  bool callsSlowPaths(Value value);
  /// Whether computing `value` involves a dropout or random (Philox rounds).
  bool computesPhilox(Value value);
  /// Whether computing `value` reads a kernel input or an anchor's result;
  /// a value that does not (a constant, an iota) is recomputed where needed.
  bool readsMemory(Value value);
  void closeLanes();
  std::string allReduce(const std::string &acc, Combine combine,
                        const std::string &type);
  FailureOr<std::string>
  reduce(Value x, Combine combine, Type accType,
         llvm::function_ref<std::string(StringRef)> term);
  LogicalResult materialize(Value x, bool wanted);
  /// The row's max of `x` and sum of exp(x - max), the statistics softmax,
  /// log_softmax, cross_entropy and cross_entropy_grad all reduce: computed
  /// once per row and reused by every anchor on the same `x`. A row held in
  /// registers is reduced in two passes (max, then the sum); a row re-read
  /// from memory in one, the online form (tfc_softmax_update). A fused
  /// cross_entropy and its gradient thus read a long logits row twice (the
  /// statistics, the gradient), not five times. Returns the two row-level
  /// variables.
  FailureOr<std::pair<std::string, std::string>> softmaxStatistics(Value x,
                                                                   Type accType);
  LogicalResult emitAnchor(Operation *op);
  FailureOr<CExpr> anchorResult(OpResult result, ArrayRef<IndexExpr> coords);
  bool isCurrentRow(Value value, ArrayRef<IndexExpr> coords);
  std::string rowKey(Value value);
  CExpr rowStat(Type accType, const std::string &expr);
  LogicalResult emitGridStage();
  // Backward ops (softmax_grad, log_softmax_grad, layer_norm_grad_input,
  // rms_norm_grad_input, cross_entropy_grad).
  /// A row sum of `term` at each element; `ahead` as for openLanes.
  FailureOr<std::string> reduceWith(
      Type accType, ArrayRef<Value> ahead,
      llvm::function_ref<FailureOr<std::string>(const IndexExpr &)> term);
  LogicalResult emitLabelCounts();
  LogicalResult emitGradAnchor(Operation *op);
  LogicalResult normGradTerms(Operation *op, ArrayRef<IndexExpr> coords,
                              std::string &g, std::string &xhat, int &level);
  FailureOr<CExpr> gradAnchorResult(OpResult result,
                                    ArrayRef<IndexExpr> coords);

  KernelInfo &info;
  KernelWriter w;
  std::unique_ptr<ValueEmitter> ve;

  // Geometry and mapping.
  int64_t rows = 0, length = 0;
  bool warpPerRow = true;
  int64_t threads = 0, perThread = 0, grid = 0, rowsPerBlock = 1;
  int rowVar = -1, rowLevel = 1, laneLevel = 2, lanePushes = 0;
  /// The schedule's `unroll`: elements loaded ahead in passes that re-read
  /// their rows (1: none).
  int64_t unroll = 1;
  /// Whether the open lane loop is loadAhead's chunked form.
  bool chunkedLanes = false;
  /// The level of the innermost lane loop (`for (int k ...)`).
  int lanesLevel = 2;
  std::string laneId; ///< "lane" or "threadIdx.x"

  SmallVector<Operation *> anchors;
  llvm::DenseSet<Operation *> emitted;
  llvm::DenseMap<Operation *, SmallVector<std::string>> stats;
  llvm::DenseMap<Value, std::string> rowArrays;
  llvm::DenseMap<Value, std::pair<std::string, std::string>> softmaxStats;
  int64_t registersLeft = kRegisterBudget;
  std::set<std::string> sharedTypes;
  SmallVector<LossAccumulator> losses;
  /// Column sums over the rows (a layer_norm backward's weight and bias
  /// gradients): each thread accumulates its positions of the row in
  /// registers (`colAccs[n][k]`) over the rows it walks; blocks combine
  /// their warps in order, and the last block sums the blocks' partials.
  SmallVector<Operation *> columnSums;
  SmallVector<std::string> colAccs;
  llvm::DenseSet<Value> perColumn; ///< values computed from column sums
  LogicalResult emitColumnStage();
  llvm::DenseSet<Value> afterAllRows; ///< values that need every row's loss
  /// cross_entropy_grad (mean): the number of rows not ignored, a kernel-wide
  /// value every warp (or block) counts before the row loop.
  llvm::DenseMap<Operation *, std::string> labelCounts;
};

/// The input a row-reduction anchor reduces.
inline Value anchorInput(Operation *op) { return op->getOperand(0); }

} // namespace mlir::tfc::cuda

#endif // TFC_COMPILER_CODEGEN_CUDA_ROWKERNELEMITTER_H
