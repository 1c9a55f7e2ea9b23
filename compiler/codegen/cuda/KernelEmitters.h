//===- KernelEmitters.h - per-kind CUDA kernel emitters ---------*- C++ -*-===//
//
// Internal to TfcCudaCodegen: what CudaCodegen.cpp hands each kind's emitter
// (a verified body and its outputs) and the pieces they share (signature,
// output stores, final assembly).
//
//===----------------------------------------------------------------------===//

#ifndef TFC_COMPILER_CODEGEN_CUDA_KERNELEMITTERS_H
#define TFC_COMPILER_CODEGEN_CUDA_KERNELEMITTERS_H

#include "compiler/codegen/cuda/CudaCodegen.h"
#include "compiler/codegen/cuda/DeviceLibrary.h"
#include "compiler/codegen/cuda/KernelWriter.h"

#include "dialects/tfc/TfcKernelSchedule.h"

#include "mlir/IR/Value.h"
#include "llvm/ADT/SmallVector.h"

namespace mlir::tfc::cuda {

/// A body that passed the kernel rules, with what every emitter needs.
struct KernelInfo {
  Block *body = nullptr;
  Operation *terminator = nullptr;
  KernelKind kind = KernelKind::pointwise;
  std::string name;
  /// The yielded values, in output order.
  SmallVector<Value> outputs;
  /// "int", or "long long" when some tensor has 2^31 elements or more.
  std::string indexType = "int";
  /// Device-library parts the body's types and ops need.
  DeviceLibraryNeeds needs;
  /// Per output, the input a launch may pass the same buffer for (the
  /// kernel's `in_place` attribute), or -1; empty when there is none.
  SmallVector<int64_t> inPlace;
  /// How the kernel launches (TfcKernelSchedule.h): the kernel's
  /// `schedule` attribute, or the default target's choice.
  KernelScheduleAttr schedule;
};

/// The schedule's grid cap (`max_blocks`; 0: CUDA's grid.x limit).
inline int64_t maxGridBlocks(KernelScheduleAttr schedule) {
  return schedule.getMaxBlocks() > 0 ? schedule.getMaxBlocks() : 0x7fffffff;
}

/// `extern "C" __global__ void __launch_bounds__(threads) name(params)`.
std::string kernelSignature(const KernelInfo &info, int64_t threads);

/// `out<k>[index] = <value converted to storage>;`
std::string storeOutput(const KernelInfo &info, unsigned k,
                        llvm::StringRef index, llvm::StringRef value);

/// Cross-block stages (a loss, column sums over rows, whole-tensor sums):
/// every block writes partials into `__device__` arrays sized for the
/// generated grid, and the last block to finish combines them in block
/// order. The guard traps a launch with another grid.
void emitGridGuard(KernelWriter &w, int64_t grid);
/// After every thread wrote its partials: publishes them and elects the
/// last block to finish into the shared `tfc_last_block`, counting blocks
/// in `__device__ tfc_blocks_done` (which that block re-arms to 0).
void emitLastBlockElection(KernelWriter &w);

/// The complete source: header comment, device library, globals, kernel.
std::string assembleSource(const KernelInfo &info, const KernelWriter &writer,
                           int64_t threads, llvm::StringRef summary);

/// Rounds `x` up to a multiple of `m`.
inline int64_t roundUp(int64_t x, int64_t m) { return (x + m - 1) / m * m; }
inline int64_t ceilDivide(int64_t a, int64_t b) { return (a + b - 1) / b; }

/// The op of type OpTy in the body (the one anchor of a kernel kind that
/// holds exactly one, as the kernel rules checked), or a null op.
template <typename OpTy> OpTy findKernelOp(const KernelInfo &info) {
  for (Operation &op : info.body->without_terminator())
    if (auto found = dyn_cast<OpTy>(op))
      return found;
  return OpTy();
}

FailureOr<CudaKernel> emitPointwiseKernel(KernelInfo &info);
FailureOr<CudaKernel> emitRowReductionKernel(KernelInfo &info);
FailureOr<CudaKernel> emitColumnReductionKernel(KernelInfo &info);
FailureOr<CudaKernel> emitMultiTensorKernel(KernelInfo &info);
FailureOr<CudaKernel> emitBlockQuantizedKernel(KernelInfo &info);
FailureOr<CudaKernel> emitScatterKernel(KernelInfo &info);
FailureOr<CudaKernel> emitSortKernel(KernelInfo &info);

class ValueEmitter;

/// The fixed hyper-parameters of an Adam-family update and its compute
/// type (float, or double for f64 parameters).
struct AdamParams {
  bool decoupled; ///< AdamW's decoupled weight decay, else Adam's L2.
  double beta1, beta2, eps, weightDecay;
  Type computeType;
};
/// The per-step scalars, formed in double as torch forms them from Python
/// floats and rounded to the compute type once.
struct AdamScalars {
  CExpr lr, negStep, bc2Sqrt, decay;
};
/// The new parameter and moments of one element.
struct AdamElement {
  CExpr param, expAvg, expAvgSq;
};
/// Emits the scalars of one step from the 0-d `lr` and `step` values (they
/// land in the outermost scope that has them). Shared by every kernel that
/// runs an Adam update, so the formula exists once (multi_tensor adamw/adam,
/// block_quantized adamw8bit); HostAdam.h is its host twin. With `shared`,
/// the scalars of another update of the same betas, lr and step (another
/// weight-decay group), only the decay factor is new: the bias corrections
/// (pow calls, which keep what is live across them on the stack) are
/// computed once per launch.
FailureOr<AdamScalars> emitAdamScalars(ValueEmitter &ve,
                                       const AdamParams &params, Value lr,
                                       Value step,
                                       const AdamScalars *shared = nullptr);
/// Emits torch.optim's single-tensor update of one element from its
/// parameter, gradient (already negated under maximize) and moments, all in
/// the compute type.
AdamElement emitAdamElement(KernelWriter &w, const AdamParams &params,
                            const AdamScalars &scalars, const CExpr &p,
                            const CExpr &g, const CExpr &m, const CExpr &v);

} // namespace mlir::tfc::cuda

#endif // TFC_COMPILER_CODEGEN_CUDA_KERNELEMITTERS_H
