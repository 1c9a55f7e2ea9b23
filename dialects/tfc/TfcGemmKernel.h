//===- TfcGemmKernel.h - what a gemm kernel may hold ------------*- C++ -*-===//
//
// A gemm kernel is one tfc.matmul that cuBLASLt runs (tfcrt.gemm), plus the
// epilogue cuBLASLt can apply to the product before storing it. Forward: an
// optional bias add over the rows, then an optional activation (ReLU, or
// GELU's tanh form, whose input may be stored too): cuBLASLt's
// EPILOGUE_BIAS, _RELU, _RELU_BIAS, _GELU, _GELU_AUX, _GELU_BIAS,
// _GELU_AUX_BIAS. Backward: GELU's gradient with the product as the
// incoming gradient and the stored GELU input, then optionally its sum over
// the rows (the bias gradient): _DGELU, _DGELU_BGRAD. The kernel rules (TfcKernelRules.h) accept a gemm kernel
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

/// The activation of a GEMM epilogue.
enum class GemmActivation { none, relu, gelu };

/// The ops of a gemm kernel, as matchGemmKernel found them.
struct GemmKernelOps {
  MatmulOp matmul;
  /// `product + bias` with `bias` (a kernel input) broadcast over the rows;
  /// null without a bias.
  AddOp biasAdd;
  Value bias;
  /// tfc.relu, or tfc.gelu approximate tanh, of the product or bias add;
  /// null without an activation.
  Operation *activation = nullptr;
  GemmActivation activationKind = GemmActivation::none;
  /// Whether the GELU's input is also a kernel output (the value its
  /// backward reads: cuBLASLt's aux matrix).
  bool storesActivationInput = false;

  /// Backward epilogue: tfc.gelu_grad (tanh form) of the product and an
  /// outside GELU input (the aux matrix the forward stored, read here)...
  GeluGradOp geluGrad;
  /// ...and optionally tfc.reduce_sum of it over every dim but the last
  /// (the bias gradient, written to the bias buffer); null otherwise.
  ReduceSumOp biasGrad;

  /// The value the activation reads: the bias add's result, or the product.
  Value activationInput();
  /// The value the GEMM stores in C: the last op's result.
  Value result();
};

/// Matches `ops` (in program order, no terminator) computing `outputs` as a
/// gemm kernel:
///   - exactly one tfc.matmul, first, whose operands come from outside;
///   - optionally its epilogue, only when the matmul is a single GEMM of
///     f32, f16 or bf16 (cuBLASLt has no f64 epilogues): a tfc.add of the
///     product and an outside value of one row (n elements, every other dim
///     1), then a tfc.relu or tfc.gelu approximate tanh of that sum (or of
///     the product); each part is optional;
///   - each op but the last is read only by the next one, except that a
///     GELU's input may also be an output (then n must be a multiple of 8,
///     cuBLASLt's rule for the aux matrix's leading dimension); the last
///     op's result is an output;
///   - or, instead, the backward epilogue (same GEMM conditions): a
///     tfc.gelu_grad approximate tanh whose dy is the product and whose x
///     comes from outside (n a multiple of 8), optionally followed by a
///     tfc.reduce_sum of it over every dim but the last (no keepdim); both
///     results are outputs and the product has no other reader.
/// On failure reports the first violated rule through `emitError` (when
/// given) and fails.
FailureOr<GemmKernelOps>
matchGemmKernel(ArrayRef<Operation *> ops, ArrayRef<Value> outputs,
                function_ref<InFlightDiagnostic()> emitError = {});

} // namespace mlir::tfc

#endif // TFC_DIALECTS_TFC_TFCGEMMKERNEL_H
