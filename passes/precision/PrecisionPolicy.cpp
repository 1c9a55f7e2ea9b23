//===- PrecisionPolicy.cpp - the mixed-precision op lists ------------------===//
//
// The lists follow torch.amp's autocast (CUDA): matmul-like ops in the low
// precision; exp, log, pow, rsqrt, sums, norms, softmax and losses in f32;
// the rest in the type its inputs have. Backward ops of an f32 op are f32
// too, so a function that already holds gradients is typed consistently.
// The option help and docs/precision.md list the same ops; the lit test
// precision-policy-lists.test checks them against these lists.
//
//===----------------------------------------------------------------------===//

#include "passes/precision/PrecisionPolicy.h"

#include "dialects/tfc/TfcOps.h"
#include "dialects/tfc/TfcOptimizerUpdates.h"

#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/StringSwitch.h"

using namespace mlir;
using namespace mlir::tfc;

#define TFC_LOW_PRECISION_OPS MatmulOp, AttentionOp
#define TFC_F32_OPS                                                            \
  LayerNormOp, RmsNormOp, SoftmaxOp, LogSoftmaxOp, CrossEntropyOp,             \
      ReduceSumOp, ReduceMeanOp, ExpOp, LogOp, PowOp, RsqrtOp,                 \
      LayerNormGradOp, RmsNormGradOp, LayerNormGradInputOp,                    \
      RmsNormGradInputOp, SoftmaxGradOp, LogSoftmaxGradOp,                     \
      CrossEntropyGradOp
#define TFC_REFUSED_OPS TFC_OPTIMIZER_UPDATE_OPS, FusionOp

namespace {
template <typename... Ops> SmallVector<StringRef> opNames() {
  return {Ops::getOperationName()...};
}
} // namespace

namespace tfc {

std::optional<Precision> parsePrecision(StringRef name) {
  return llvm::StringSwitch<std::optional<Precision>>(name)
      .Case("f32", Precision::F32)
      .Case("tf32", Precision::TF32)
      .Case("bf16", Precision::BF16)
      .Case("fp16", Precision::FP16)
      .Default(std::nullopt);
}

StringRef precisionName(Precision precision) {
  switch (precision) {
  case Precision::F32:
    return "f32";
  case Precision::TF32:
    return "tf32";
  case Precision::BF16:
    return "bf16";
  case Precision::FP16:
    return "fp16";
  }
  return "f32";
}

StringRef precisionNames() { return "f32, tf32, bf16 or fp16"; }

Type lowPrecisionType(Precision precision, MLIRContext *context) {
  switch (precision) {
  case Precision::BF16:
    return BFloat16Type::get(context);
  case Precision::FP16:
    return Float16Type::get(context);
  default:
    return nullptr;
  }
}

PrecisionClass precisionClassOf(Operation *op) {
  if (isa<TFC_LOW_PRECISION_OPS>(op))
    return PrecisionClass::Low;
  if (isa<TFC_F32_OPS>(op))
    return PrecisionClass::F32;
  if (isa<TFC_REFUSED_OPS>(op))
    return PrecisionClass::Refused;
  return PrecisionClass::Follow;
}

SmallVector<StringRef> precisionClassOps(PrecisionClass cls) {
  switch (cls) {
  case PrecisionClass::Low:
    return opNames<TFC_LOW_PRECISION_OPS>();
  case PrecisionClass::F32:
    return opNames<TFC_F32_OPS>();
  case PrecisionClass::Refused:
    return opNames<TFC_REFUSED_OPS>();
  case PrecisionClass::Follow:
    return {};
  }
  return {};
}

} // namespace tfc
