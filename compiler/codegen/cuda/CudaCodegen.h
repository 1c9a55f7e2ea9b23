//===- CudaCodegen.h - CUDA C++ source of one tfc kernel --------*- C++ -*-===//
//
// Turns the body of a kernel (a tfc.fusion region, or the region of a
// tfcrt.kernel symbol: block arguments = inputs, tfc ops, a terminator
// (tfc.yield / tfcrt.yield) whose operands are the outputs) into one
// self-contained CUDA C++ source for NVRTC, following docs/execution.md §3:
//
//   extern "C" __global__ void <name>(const T0* __restrict__ in0, ...,
//                                     T* __restrict__ out0, ...)
//
// with parameters in block-argument then yield order, shapes as compile-time
// constants, storage types f32 float, f64 double, f16 __half,
// bf16 __nv_bfloat16, i1 unsigned char (0/1), i32 int, i64 long long, and
// math in fp32 (f64 for f64). Launch geometry (threads, rows per block,
// vector width, grid cap) comes from the kernel's `schedule` attribute
// (dialects/tfc/TfcKernelSchedule.h), else from the default target's choice;
// a kernel scheduled for the host has no CUDA source. Kinds and their CUDA
// mapping, with the default schedules:
//
//   pointwise         grid-stride loop over the output elements; each
//                     element computes the indices of its inputs; 16-byte
//                     vector loads/stores (tfc_vec) when every full-size
//                     access is contiguous and the pointers are aligned
//                     (checked at run time, scalar loop otherwise)
//   row_reduction     one warp per row (rows_per_block warps per block) or
//                     one block per row; the row is held in registers
//                     (re-read when it would not fit); warp-shuffle
//                     reductions; pointwise ops before and after. A
//                     cross_entropy loss is reduced over rows with a fixed-
//                     order per-block sum plus a last-block stage (no float
//                     atomics): deterministic run to run.
//   column_reduction  blocks of 32 columns x rows_per_block row groups, fixed-order
//                     shared-memory combine, then (for long columns) a
//                     second stage over per-split partials by the last block
//                     of each column tile: deterministic, no float atomics
//   gather            the pointwise mapping with embedding lookups; an id
//                     outside [0, V) yields a row of zeros (PyTorch raises)
//   multi_tensor      one launch over all the region's tensors: a
//                     grid-stride loop per distinct output shape, runtime
//                     scalars (lr, step, bias corrections) hoisted; optimizer
//                     ops (adamw, adam, sgd) follow torch.optim step by step
//   block_quantized   one thread block per quantization block of the one
//                     adamw8bit op: decode, AdamW update, block absmax by
//                     warp shuffles, encode against __constant__ maps
//   scatter           embedding_grad: a warp per table row ballots the ids
//                     and sums the matching dy rows in position order
//                     (no float atomics; the host's order, same bits)
//   sort              tfc.sort: a block per row, a bitonic network over
//                     (key, position) pairs under the host's comparator
//                     (common/ScalarOps.h), in shared memory for short rows
//
// Kernels with a cross-block stage keep their partials in __device__ arrays
// of the kernel's own module and must be launched with exactly the generated
// grid on one stream at a time (they trap otherwise). Sources using f16 or
// bf16 include <cuda_fp16.h> / <cuda_bf16.h>, so NVRTC needs the CUDA
// include directory (`-I$CUDA_HOME/include`) and `-std=c++17`.
//
//===----------------------------------------------------------------------===//

#ifndef TFC_COMPILER_CODEGEN_CUDA_CUDACODEGEN_H
#define TFC_COMPILER_CODEGEN_CUDA_CUDACODEGEN_H

#include "dialects/tfc/TfcDialect.h"

#include "mlir/IR/Block.h"
#include "mlir/Support/LogicalResult.h"
#include "llvm/ADT/StringRef.h"

#include <array>
#include <cstdint>
#include <string>

namespace mlir::tfc {

/// One generated kernel and its launch configuration.
struct CudaKernel {
  /// The `extern "C"` function name (the kernel symbol).
  std::string name;
  /// The complete CUDA C++ source for NVRTC.
  std::string source;
  /// Launch grid and block dimensions (x, y, z).
  std::array<int64_t, 3> grid = {1, 1, 1};
  std::array<int64_t, 3> block = {1, 1, 1};
  /// Dynamic shared memory bytes to pass at launch (the kernels declare
  /// their shared memory statically, so this is 0 today).
  int64_t sharedBytes = 0;
  /// The kind the kernel was generated as.
  KernelKind kind = KernelKind::pointwise;
};

/// Generates the CUDA kernel `name` of kind `kind` from `body` (block
/// arguments = inputs, tfc ops, tfc.yield = outputs). Checks the body with
/// the tfc.fusion kernel rules first. A body codegen cannot emit (a kind it
/// does not handle, an unsupported op or layout) gets an MLIR diagnostic at
/// the offending op and failure; `name` must be a C identifier.
FailureOr<CudaKernel> emitCudaKernel(Block &body, KernelKind kind,
                                     StringRef name);

/// A kernel body found in IR, with the name and kind to emit it as.
struct KernelSite {
  Operation *op = nullptr;
  Block *body = nullptr;
  KernelKind kind = KernelKind::pointwise;
  std::string name;
};

/// Every kernel under `root` in program order: each tfc.fusion (named by
/// its `kernel_name` string attribute, else `fusion<N>` in walk order) and
/// each tfcrt.kernel symbol (named by its symbol; matched by op name so
/// codegen does not depend on the exec dialect's C++ API).
SmallVector<KernelSite> findKernels(Operation *root);

} // namespace mlir::tfc

#endif // TFC_COMPILER_CODEGEN_CUDA_CUDACODEGEN_H
