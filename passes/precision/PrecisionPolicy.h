//===- PrecisionPolicy.h - which ops run in 16-bit, which in f32 -*- C++ -*-===//
//
// The op policy of --tfc-auto-mixed-precision, in the spirit of torch.amp's
// autocast lists. Every tfc op belongs to exactly one class; this header and
// PrecisionPolicy.cpp are the one place that says which.
//
//===----------------------------------------------------------------------===//

#ifndef TFC_PASSES_PRECISION_PRECISIONPOLICY_H
#define TFC_PASSES_PRECISION_PRECISIONPOLICY_H

#include "mlir/IR/Operation.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

#include <optional>

namespace tfc {

/// A training precision (`precision=` of the pass and the pipelines).
enum class Precision {
  F32,  ///< everything as written (the default)
  TF32, ///< f32 storage; f32 GEMMs may use TF32 tensor cores
  BF16, ///< mixed precision with bfloat16
  FP16, ///< mixed precision with IEEE half (wants loss scaling)
};

/// Parses "f32", "tf32", "bf16" or "fp16".
std::optional<Precision> parsePrecision(llvm::StringRef name);
llvm::StringRef precisionName(Precision precision);
/// "f32, tf32, bf16 or fp16", for error messages.
llvm::StringRef precisionNames();
/// bf16 or f16 for the mixed precisions, null otherwise.
mlir::Type lowPrecisionType(Precision precision, mlir::MLIRContext *context);

/// What a mixed precision does with an op.
enum class PrecisionClass {
  /// GEMMs and attention: f32 float operands become 16-bit, the results are
  /// 16-bit (the kernels accumulate in f32).
  Low,
  /// Numerically sensitive ops (norms, softmax, losses, sums, exp/log):
  /// 16-bit float operands become f32, so are the results.
  F32,
  /// Everything else runs in its operands' storage type. Operands of
  /// different float types meet at the widest of the activations' types;
  /// operands computed from parameters and constants alone (a bias, a
  /// scale) follow the activations instead of widening them, as a linear
  /// layer's bias does under autocast.
  Follow,
  /// Not allowed in a mixed-precision forward (optimizer updates, fused
  /// kernels): precision is chosen before the train step and fusion exist.
  Refused,
};

/// The class of `op` (a tfc op, or any other op: Follow).
PrecisionClass precisionClassOf(mlir::Operation *op);

/// The op names of `cls`, as the documentation and the option's help list
/// them (empty for Follow: every op not listed elsewhere).
llvm::SmallVector<llvm::StringRef> precisionClassOps(PrecisionClass cls);

} // namespace tfc

#endif // TFC_PASSES_PRECISION_PRECISIONPOLICY_H
