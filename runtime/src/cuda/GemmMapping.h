//===- GemmMapping.h - row-major GEMMs as column-major cuBLASLt calls -*- C++
//-*-===//
//
// tfc's GemmDesc is row-major; cuBLASLt is column-major. A row-major matrix X
// (r x c, leading dimension ld) has the same bytes as the column-major matrix
// X^T (c x r, same ld), and C = op(A) op(B) is equivalent to
// C^T = op(B)^T op(A)^T. So the row-major GEMM runs as the column-major GEMM
// with the operands swapped (A' = B, B' = A), m and n swapped, and the
// transpose flags kept: no data moves. This file holds that mapping and the
// validation of a GemmDesc for cuBLASLt; it has no CUDA dependency so the
// identity is unit-tested on the CPU.
//
//===----------------------------------------------------------------------===//

#ifndef TFC_RUNTIME_CUDA_GEMMMAPPING_H
#define TFC_RUNTIME_CUDA_GEMMMAPPING_H

#include "runtime/src/core/Artifact.h"
#include "runtime/src/core/Status.h"

#include <cstdint>
#include <string>

namespace tfc::rt::cuda {

/// One column-major operand as cuBLASLt's matrix layout describes it.
struct ColumnMajorLayout {
  DType type = DType::F32;
  int64_t rows = 0, cols = 0, ld = 0;
  int64_t batchStride = 0; ///< Elements; 0 broadcasts over the batch.
};

/// D = alpha * op(A) * op(B) + beta * C in column-major terms, D and C
/// sharing one buffer and layout. op(A) is m x k, op(B) is k x n.
struct ColumnMajorGemm {
  bool transA = false, transB = false;
  int64_t m = 0, n = 0, k = 0, batch = 1;
  ColumnMajorLayout a, b, c;
  /// True when computing in f64 (CUBLAS_COMPUTE_64F, double scalars);
  /// otherwise CUBLAS_COMPUTE_32F with float scalars.
  bool computeF64 = false;
};

/// Checks everything cuBLASLt needs from `gemm`: positive sizes, leading
/// dimensions that hold a row, batch strides that keep the C matrices of a
/// batch apart, a supported type combination (A and B of one type among
/// f32/f16/bf16/f64; C of that type or f32 for 16-bit inputs; f64 only with
/// f64), compute type f32 (or f64 for f64 data: cuBLASLt has no f32
/// compute for f64 operands), epilogue none, finite alpha and beta.
Status validateGemm(const GemmDesc &gemm);

/// The column-major form of a (validated) row-major GEMM: A' = B, B' = A,
/// m' = n, n' = m, transA' = transposeB, transB' = transposeA.
ColumnMajorGemm toColumnMajor(const GemmDesc &gemm);

/// A string identifying everything about `gemm` that cuBLASLt's algorithm
/// choice depends on (shapes, layouts, types, transposes, batch), plus the
/// operand alignments in bytes; the key of the heuristic cache.
std::string heuristicKey(const ColumnMajorGemm &gemm, uint32_t alignA,
                         uint32_t alignB, uint32_t alignC);

/// The largest power of two (at most 256) dividing `address`; 256 for 0.
uint32_t pointerAlignment(uint64_t address);

} // namespace tfc::rt::cuda

#endif // TFC_RUNTIME_CUDA_GEMMMAPPING_H
