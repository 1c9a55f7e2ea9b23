//===- TfcGemmKernel.h - what a gemm kernel may hold ------------*- C++ -*-===//
//
// A gemm kernel is one tfc.matmul that cuBLASLt runs (tfcrt.gemm), plus the
// pointwise epilogue cuBLASLt can apply to the product before storing it:
// a bias add over the rows, optionally followed by GELU's tanh form, whose
// input may be stored too (cuBLASLt's EPILOGUE_BIAS, _GELU_BIAS,
// _GELU_AUX_BIAS). The kernel rules (TfcKernelRules.h) accept a gemm kernel
// exactly when matchGemmKernel does, and --tfc-convert-to-exec lowers what
// it matched, so the fusion pass can only form epilogues that run.
//
//===----------------------------------------------------------------------===//

#ifndef TFC_DIALECTS_TFC_TFCGEMMKERNEL_H
#define TFC_DIALECTS_TFC_TFCGEMMKERNEL_H

#include "dialects/tfc/TfcOps.h"

#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"

namespace mlir::tfc {

/// Whether `matmul` runs as ONE GEMM (batch 1): its result has a single
/// matrix, or `b` has one and `a` is not transposed, so `a`'s batch rows
/// are contiguous and flatten into m (a linear layer).
bool isSingleGemm(MatmulOp matmul);

/// The ops of a gemm kernel, as matchGemmKernel found them.
struct GemmKernelOps {
  MatmulOp matmul;
  /// `product + bias` with `bias` (a kernel input) broadcast over the rows;
  /// null without an epilogue.
  AddOp biasAdd;
  Value bias;
  /// gelu(approximate tanh) of the bias add; null when the epilogue ends
  /// with the add.
  GeluOp gelu;
  /// Whether the bias add's result is also a kernel output (the GELU input
  /// that the backward reads: cuBLASLt's aux matrix).
  bool storesGeluInput = false;
  /// The value the GEMM stores in C: the last op's result.
  Value result();
};

/// Matches `ops` (in program order, no terminator) computing `outputs` as a
/// gemm kernel:
///   - exactly one tfc.matmul, first, whose operands come from outside;
///   - optionally its epilogue: a tfc.add of the product and an outside
///     value of one row (n elements, every other dim 1) of the same element
///     type (f32, f16 or bf16: cuBLASLt has no f64 epilogues), only when the
///     matmul is a single GEMM; then optionally a tfc.gelu approximate tanh
///     of that sum;
///   - each op but the last is read only by the next one, except that the
///     bias add may also be an output next to GELU's result (then n must be
///     a multiple of 8, cuBLASLt's rule for the aux matrix's leading
///     dimension); the last op's result is an output.
/// On failure reports the first violated rule through `emitError` (when
/// given) and fails.
FailureOr<GemmKernelOps>
matchGemmKernel(ArrayRef<Operation *> ops, ArrayRef<Value> outputs,
                function_ref<InFlightDiagnostic()> emitError = {});

} // namespace mlir::tfc

#endif // TFC_DIALECTS_TFC_TFCGEMMKERNEL_H
