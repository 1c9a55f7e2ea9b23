//===- TfcOptimizerOps.cpp - tfc optimizer update ops ---------------------===//
//
// Verifiers, result-type inference and kernel roles of adamw, adam, sgd and
// adamw8bit.
// The hyper-parameter ranges are torch.optim's constructor checks, so a
// program tfc accepts is one PyTorch would run.
//
//===----------------------------------------------------------------------===//

#include "dialects/tfc/TfcOps.h"
#include "dialects/tfc/TfcShapeUtils.h"

#include "mlir/IR/Builders.h"
#include "llvm/Support/MathExtras.h"

#include <cmath>

using namespace mlir;
using namespace mlir::tfc;

#define GET_OP_CLASSES
#include "dialects/tfc/TfcOptimizerOps.cpp.inc"

void TfcDialect::registerOptimizerOps() {
  addOperations<
#define GET_OP_LIST
#include "dialects/tfc/TfcOptimizerOps.cpp.inc"
      >();
}

namespace {
/// The gradient is elementwise with the parameter; its dtype is free because
/// 16-bit gradients commonly update fp32 master weights.
LogicalResult verifyGradShape(Operation *op, Value param, Value grad) {
  ArrayRef<int64_t> p = cast<RankedTensorType>(param.getType()).getShape();
  ArrayRef<int64_t> g = cast<RankedTensorType>(grad.getType()).getShape();
  if (p != g)
    return op->emitOpError() << "grad shape " << formatShape(g)
                             << " must equal param shape " << formatShape(p);
  return success();
}

LogicalResult verifyNonNegative(Operation *op, StringRef name, double value) {
  if (!(value >= 0.0) || !std::isfinite(value))
    return op->emitOpError()
           << name << " must be non-negative and finite, got " << value;
  return success();
}

/// Adam and AdamW share their rules.
template <typename AdamOpT> LogicalResult verifyAdam(AdamOpT op) {
  if (failed(verifyGradShape(op, op.getParam(), op.getGrad())))
    return failure();
  for (auto [name, beta] : {std::pair<StringRef, double>{
                                "beta1", op.getBeta1().convertToDouble()},
                            {"beta2", op.getBeta2().convertToDouble()}})
    if (!(beta >= 0.0 && beta < 1.0))
      return op.emitOpError() << name << " must lie in [0, 1), got " << beta;
  if (failed(verifyNonNegative(op, "eps", op.getEps().convertToDouble())) ||
      failed(verifyNonNegative(op, "weight_decay",
                               op.getWeightDecay().convertToDouble())))
    return failure();
  return success();
}
} // namespace

LogicalResult AdamWOp::verify() { return verifyAdam(*this); }
LogicalResult AdamOp::verify() { return verifyAdam(*this); }
KernelRole AdamWOp::getKernelRole() { return KernelRole::MultiTensor; }
KernelRole AdamOp::getKernelRole() { return KernelRole::MultiTensor; }

LogicalResult SgdOp::inferReturnTypes(MLIRContext *,
                                      std::optional<Location> loc,
                                      Adaptor adaptor,
                                      SmallVectorImpl<Type> &inferred) {
  // The updated parameter, plus the updated buffer when there is one; both
  // have the parameter's type.
  Type param = adaptor.getParam().getType();
  inferred.push_back(param);
  if (adaptor.getMomentumBuffer())
    inferred.push_back(param);
  return success();
}

LogicalResult SgdOp::verify() {
  if (failed(verifyGradShape(*this, getParam(), getGrad())))
    return failure();
  double momentum = getMomentum().convertToDouble();
  double dampening = getDampening().convertToDouble();
  if (failed(verifyNonNegative(*this, "momentum", momentum)) ||
      failed(verifyNonNegative(*this, "dampening", dampening)) ||
      failed(verifyNonNegative(*this, "weight_decay",
                               getWeightDecay().convertToDouble())))
    return failure();
  if (getNesterov() && (momentum == 0.0 || dampening != 0.0))
    return emitOpError() << "nesterov needs momentum > 0 and dampening 0, got "
                            "momentum "
                         << momentum << " and dampening " << dampening;
  bool hasBuffer = static_cast<bool>(getMomentumBuffer());
  if (hasBuffer && getMomentumBuffer().getType() != getParam().getType())
    return emitOpError() << "momentum buffer type "
                         << getMomentumBuffer().getType()
                         << " must equal param type " << getParam().getType();
  if (hasBuffer != (momentum != 0.0))
    return emitOpError() << (hasBuffer ? "a momentum buffer needs momentum != 0"
                                       : "momentum != 0 needs a momentum "
                                         "buffer operand");
  return success();
}

KernelRole SgdOp::getKernelRole() { return KernelRole::MultiTensor; }

LogicalResult AdamW8bitOp::verify() {
  if (failed(verifyAdam(*this)))
    return failure();
  auto param = cast<RankedTensorType>(getParam().getType());
  if (!param.getElementType().isF32())
    return emitOpError() << "param must be f32 (8-bit state updates f32 "
                            "weights), got "
                         << param;
  auto codes = cast<RankedTensorType>(getExpAvg().getType());
  if (codes.getShape() != param.getShape())
    return emitOpError() << "state codes shape "
                         << formatShape(codes.getShape())
                         << " must equal param shape "
                         << formatShape(param.getShape());
  int64_t blockSize = getBlockSize();
  if (blockSize < 32 || blockSize > 1024 || !llvm::isPowerOf2_64(blockSize))
    return emitOpError() << "block_size must be a power of two in [32, "
                            "1024], got "
                         << blockSize;
  int64_t blocks = (param.getNumElements() + blockSize - 1) / blockSize;
  int64_t absmax =
      cast<RankedTensorType>(getExpAvgAbsmax().getType()).getDimSize(0);
  if (absmax != blocks)
    return emitOpError() << "absmax must hold one scale per block of "
                         << blockSize << " elements: " << blocks
                         << " for param shape " << formatShape(param.getShape())
                         << ", got " << absmax;
  return success();
}

KernelRole AdamW8bitOp::getKernelRole() { return KernelRole::BlockQuantized; }
