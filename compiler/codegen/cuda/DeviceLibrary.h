//===- DeviceLibrary.h - device helpers of generated kernels ----*- C++ -*-===//
//
// The small CUDA library every generated source starts with: 16-bit
// rounding, NaN-propagating max/min, index clamping, aligned vector types,
// warp/block reductions, the element formulas shared with the host
// (common/ScalarOps.h: activations, the Philox4x32-10 generator of
// tfc.dropout) and the 8-bit quantization maps of tfc.adamw8bit. Each
// kernel source is self-contained (one NVRTC program per kernel), so only the
// parts a kernel uses are included.
//
//===----------------------------------------------------------------------===//

#ifndef TFC_COMPILER_CODEGEN_CUDA_DEVICELIBRARY_H
#define TFC_COMPILER_CODEGEN_CUDA_DEVICELIBRARY_H

#include <string>

namespace mlir::tfc::cuda {

/// Which parts of the device library a kernel needs.
struct DeviceLibraryNeeds {
  bool f16 = false;        ///< <cuda_fp16.h> and tfc_round_f16
  bool bf16 = false;       ///< <cuda_bf16.h> and tfc_round_bf16
  /// common/ScalarOps.h (tfc::scalar: gelu, silu and their gradients,
  /// Philox and dropout's keep test) and `tfc_math`, the device math
  /// policy its formulas call.
  bool scalarOps = false;
  bool reductions = false; ///< warp and block all-reduce
  /// The 8-bit dynamic quantization maps (common/QuantMap.h) as
  /// __constant__ tables, tfc_quantize and tfc_absmax_op.
  bool quantMaps = false;
};

/// The C++ text of the requested parts (always including the basics).
std::string deviceLibrary(const DeviceLibraryNeeds &needs);

} // namespace mlir::tfc::cuda

#endif // TFC_COMPILER_CODEGEN_CUDA_DEVICELIBRARY_H
