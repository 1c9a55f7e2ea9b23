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
// Epilogues map to the cuBLASLt epilogue of the same name (BIAS, RELU,
// RELU_BIAS, GELU, GELU_BIAS, GELU_AUX, GELU_AUX_BIAS, DGELU, DGELU_BGRAD;
// cublasLtEpilogueValue): the row-major bias over C's columns j is
// cuBLASLt's bias over D's rows (length m' = n), and so is the bias gradient
// (DGELU_BGRAD sums D's columns, i.e. C's rows); the aux matrix, laid out
// like C, is cuBLASLt's GELU input matrix with leading dimension ldc,
// written by GELU_AUX* and read by DGELU*.
//
//===----------------------------------------------------------------------===//

#ifndef TFC_RUNTIME_CUDA_GEMMMAPPING_H
#define TFC_RUNTIME_CUDA_GEMMMAPPING_H

#include "runtime/src/core/Artifact.h"
#include "runtime/src/core/Backend.h"
#include "runtime/src/core/Status.h"

#include <cstdint>
#include <string>

namespace tfc::rt::cuda {

/// cuBLASLt composes its cublasLtEpilogue_t values from these bits
/// (cublasLt.h: CUBLASLT_EPILOGUE_GELU_AUX_BIAS = GELU | AUX | BIAS,
/// CUBLASLT_EPILOGUE_DGELU = 64 | AUX, DGELU_BGRAD = DGELU | 16); copied
/// here so the mapping needs no CUDA header, and static_assert'ed against
/// cublasLt.h in CublasLt.cpp.
namespace cublaslt_epilogue {
constexpr int32_t kDefault = 1, kRelu = 2, kBias = 4, kBGrad = 16, kGelu = 32,
                  kDGelu = 64, kAux = 128;
} // namespace cublaslt_epilogue

/// The cublasLtEpilogue_t value of `epilogue`: DEFAULT for none, otherwise
/// the function's bit (RELU, GELU or the gradient's DGELU; none for bias) |
/// BIAS with a bias read, BGRAD with a bias gradient written | AUX with aux
/// (written by GELU, read by DGELU). Each is the cuBLASLt epilogue of the
/// same name.
constexpr int32_t cublasLtEpilogueValue(GemmEpilogue epilogue) {
  namespace e = cublaslt_epilogue;
  if (epilogue == GemmEpilogue::None)
    return e::kDefault;
  int32_t value = 0;
  switch (epilogueActivation(epilogue)) {
  case GemmActivation::None:
    break;
  case GemmActivation::Relu:
    value = e::kRelu;
    break;
  case GemmActivation::GeluTanh:
    value = e::kGelu;
    break;
  case GemmActivation::GeluTanhGrad:
    value = e::kDGelu;
    break;
  }
  switch (epilogueBias(epilogue)) {
  case EpilogueOperand::None:
    break;
  case EpilogueOperand::Read:
    value |= e::kBias;
    break;
  case EpilogueOperand::Written:
    value |= e::kBGrad;
    break;
  }
  if (epilogueHasAux(epilogue))
    value |= e::kAux;
  return value;
}

/// The cuBLASLt enumerator's name for `epilogue`, for messages:
/// "CUBLASLT_EPILOGUE_DEFAULT" for none, else the manifest name upper-cased
/// ("CUBLASLT_EPILOGUE_GELU_AUX_BIAS").
std::string cublasLtEpilogueName(GemmEpilogue epilogue);

/// One column-major operand as cuBLASLt's matrix layout describes it.
struct ColumnMajorLayout {
  DType type = DType::F32;
  int64_t rows = 0, cols = 0, ld = 0;
  int64_t batchStride = 0; ///< Elements; 0 broadcasts over the batch.
};

/// D = epilogue(alpha * op(A) * op(B) + beta * C) in column-major terms, D
/// and C sharing one buffer and layout. op(A) is m x k, op(B) is k x n.
struct ColumnMajorGemm {
  bool transA = false, transB = false;
  int64_t m = 0, n = 0, k = 0, batch = 1;
  ColumnMajorLayout a, b, c;
  /// True when computing in f64 (CUBLAS_COMPUTE_64F, double scalars);
  /// otherwise CUBLAS_COMPUTE_32F with float scalars.
  bool computeF64 = false;
  /// True for f32 data on TF32 tensor cores (CUBLAS_COMPUTE_32F_FAST_TF32).
  bool computeTf32 = false;
  GemmEpilogue epilogue = GemmEpilogue::None;
  /// The bias (or bias gradient) vector's type (c's; length m, D's rows),
  /// set on the descriptor only when the epilogue has a bias.
  DType biasType = DType::F32;
  /// The aux (GELU input) matrix's leading dimension, c's ld; 0 without aux.
  int64_t auxLd = 0;
  /// Device addresses: a is the row-major B, b the row-major A; bias and aux
  /// as given (0 when absent; read or written as epilogueBias/epilogueAux
  /// say). All 0 when only the layout was asked for.
  uint64_t aPtr = 0, bPtr = 0, cPtr = 0, biasPtr = 0, auxPtr = 0;
};

/// The alignment cuBLASLt's epilogue kernels may assume for the bias and
/// aux pointers: its alignment preferences cover only A-D, so a smaller
/// one is refused rather than risking a misaligned access.
constexpr uint32_t kEpilogueOperandAlignment = 16;

/// Checks everything cuBLASLt needs from `gemm`: positive sizes, leading
/// dimensions that hold a row, batch strides that keep the C matrices of a
/// batch apart, a supported type combination (A and B of one type among
/// f32/f16/bf16/f64; C of that type or f32 for 16-bit inputs; f64 only with
/// f64), compute type f32 (or f64 for f64 data: cuBLASLt has no f32
/// compute for f64 operands; or tf32 for f32 data), finite alpha and beta; with an epilogue,
/// batch 1 and beta 0, and with aux (gelu_aux, gelu_aux_bias write it,
/// dgelu, dgelu_bgrad read it) an ldc divisible by 8
/// (CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_LD's requirement in cublasLt.h). The
/// bias gradient and aux types cuBLASLt takes are D's (c_type), which the
/// manifest requires of them; a type or transpose cuBLASLt has no kernel
/// for is reported by the heuristic ("no algorithm ... epilogue").
Status validateGemm(const GemmDesc &gemm);

/// Checks `operands` against a validated `gemm`: a, b, c set, bias and aux
/// exactly when the epilogue uses them, either way (checkGemmOperands), and
/// bias and aux aligned to kEpilogueOperandAlignment bytes.
Status validateGemmOperands(const GemmDesc &gemm, const GemmOperands &operands);

/// The column-major form of a (validated) row-major GEMM: A' = B, B' = A,
/// m' = n, n' = m, transA' = transposeB, transB' = transposeA; the epilogue,
/// bias type and aux ld carried over; the addresses of `operands` (omitted:
/// all 0) swapped to match.
ColumnMajorGemm toColumnMajor(const GemmDesc &gemm,
                              const GemmOperands &operands = {});

/// A string identifying everything about `gemm` that cuBLASLt's algorithm
/// choice depends on (shapes, layouts, types, transposes, batch, epilogue,
/// bias type, aux ld) and the alignment of each operand address in bytes
/// (pointerAlignment; bias and aux included, as the heuristic reads their
/// addresses); the key of the heuristic cache.
std::string heuristicKey(const ColumnMajorGemm &gemm);

/// The largest power of two (at most 256) dividing `address`; 256 for 0.
uint32_t pointerAlignment(uint64_t address);

} // namespace tfc::rt::cuda

#endif // TFC_RUNTIME_CUDA_GEMMMAPPING_H
