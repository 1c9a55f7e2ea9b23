//===- TfcShapeOps.cpp - tfc shape ops ------------------------------------===//
//
// Result-type inference and verifiers of the shape group. Folders live in
// TfcFolds.cpp. Inference both computes the result type and rejects bad
// attributes: the verifier of an InferTypeOpAdaptor op re-runs inference, so
// every rule checked here is also a verifier rule.
//
//===----------------------------------------------------------------------===//

#include "dialects/tfc/TfcOps.h"
#include "dialects/tfc/TfcShapeUtils.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/APSInt.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::tfc;

#define GET_OP_CLASSES
#include "dialects/tfc/TfcShapeOps.cpp.inc"

void TfcDialect::registerShapeOps() {
  addOperations<
#define GET_OP_LIST
#include "dialects/tfc/TfcShapeOps.cpp.inc"
      >();
}

namespace {
/// Formats a list of integers as "[a, b, c]" for diagnostics.
std::string formatList(ArrayRef<int64_t> values) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << '[';
  llvm::interleaveComma(values, os);
  os << ']';
  return os.str();
}

/// The ranked tensor type of an operand, or an error at `loc`. ODS
/// constraints guarantee it once the op exists, but inference also runs on
/// builder input that has not been verified yet.
FailureOr<RankedTensorType> rankedOperand(std::optional<Location> loc,
                                          Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor)
    return emitOptionalError(loc, "expected a ranked tensor operand, got ",
                             type);
  return tensor;
}
} // namespace

//===----------------------------------------------------------------------===//
// ReshapeOp
//===----------------------------------------------------------------------===//

LogicalResult ReshapeOp::verify() {
  auto from = cast<RankedTensorType>(getX().getType());
  auto to = cast<RankedTensorType>(getType());
  if (from.getNumElements() != to.getNumElements())
    return emitOpError("cannot reshape ")
           << formatShape(from.getShape()) << " (" << from.getNumElements()
           << " elements) to " << formatShape(to.getShape()) << " ("
           << to.getNumElements() << " elements)";
  return success();
}

//===----------------------------------------------------------------------===//
// TransposeOp
//===----------------------------------------------------------------------===//

LogicalResult TransposeOp::inferReturnTypes(MLIRContext *,
                                            std::optional<Location> loc,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &inferred) {
  FailureOr<RankedTensorType> x = rankedOperand(loc, adaptor.getX().getType());
  if (failed(x))
    return failure();
  ArrayRef<int64_t> permutation = adaptor.getPermutation();
  int64_t rank = x->getRank();
  if (static_cast<int64_t>(permutation.size()) != rank)
    return emitOptionalError(loc, "permutation ", formatList(permutation),
                             " has ", permutation.size(),
                             " entries but the operand has rank ", rank);
  SmallVector<bool> seen(rank, false);
  SmallVector<int64_t> shape;
  for (int64_t dim : permutation) {
    if (dim < 0 || dim >= rank || seen[dim])
      return emitOptionalError(loc, "permutation ", formatList(permutation),
                               " is not a permutation of [0, ", rank, ")");
    seen[dim] = true;
    shape.push_back(x->getDimSize(dim));
  }
  inferred.push_back(RankedTensorType::get(shape, x->getElementType()));
  return success();
}

//===----------------------------------------------------------------------===//
// BroadcastToOp
//===----------------------------------------------------------------------===//

LogicalResult BroadcastToOp::verify() {
  ArrayRef<int64_t> from = getX().getType().getShape();
  ArrayRef<int64_t> to = getType().getShape();
  if (!isBroadcastableTo(from, to))
    return emitOpError("cannot broadcast ")
           << formatShape(from) << " to " << formatShape(to)
           << " (sizes must align at the back, each equal or 1)";
  return success();
}

//===----------------------------------------------------------------------===//
// SliceOp
//===----------------------------------------------------------------------===//

SmallVector<int64_t> SliceOp::getStepOrOnes() {
  if (std::optional<ArrayRef<int64_t>> step = getStep())
    return llvm::to_vector(*step);
  return SmallVector<int64_t>(getStart().size(), 1);
}

LogicalResult SliceOp::inferReturnTypes(MLIRContext *,
                                        std::optional<Location> loc,
                                        Adaptor adaptor,
                                        SmallVectorImpl<Type> &inferred) {
  FailureOr<RankedTensorType> x = rankedOperand(loc, adaptor.getX().getType());
  if (failed(x))
    return failure();
  int64_t rank = x->getRank();
  ArrayRef<int64_t> start = adaptor.getStart(), limit = adaptor.getLimit();
  SmallVector<int64_t> step(rank, 1);
  if (std::optional<ArrayRef<int64_t>> given = adaptor.getStep())
    step.assign(given->begin(), given->end());
  std::pair<StringRef, size_t> lengths[] = {
      {"start", start.size()}, {"limit", limit.size()}, {"step", step.size()}};
  for (auto [name, length] : lengths) {
    if (static_cast<int64_t>(length) != rank)
      return emitOptionalError(loc, name, " has ", length,
                               " entries but the operand has rank ", rank);
  }
  SmallVector<int64_t> shape;
  for (int64_t d = 0; d < rank; ++d) {
    int64_t size = x->getDimSize(d);
    if (start[d] < 0 || start[d] > limit[d] || limit[d] > size)
      return emitOptionalError(loc, "dimension ", d, ": expected 0 <= start (",
                               start[d], ") <= limit (", limit[d],
                               ") <= size (", size, ")");
    if (step[d] < 1)
      return emitOptionalError(loc, "dimension ", d,
                               ": step must be at least 1, got ", step[d]);
    shape.push_back(llvm::divideCeil(limit[d] - start[d], step[d]));
  }
  inferred.push_back(RankedTensorType::get(shape, x->getElementType()));
  return success();
}

//===----------------------------------------------------------------------===//
// ConcatOp
//===----------------------------------------------------------------------===//

LogicalResult ConcatOp::inferReturnTypes(MLIRContext *,
                                         std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &inferred) {
  ValueRange inputs = adaptor.getInputs();
  if (inputs.empty())
    return emitOptionalError(loc, "requires at least one input");
  FailureOr<RankedTensorType> first = rankedOperand(loc, inputs[0].getType());
  if (failed(first))
    return failure();
  int64_t rank = first->getRank();
  std::optional<int64_t> dim = normalizeDim(adaptor.getDim(), rank);
  if (!dim)
    return emitOptionalError(loc, "dim ", adaptor.getDim(),
                             " is out of range for rank ", rank);
  SmallVector<int64_t> shape = llvm::to_vector(first->getShape());
  for (auto [index, input] : llvm::enumerate(inputs.drop_front())) {
    FailureOr<RankedTensorType> type = rankedOperand(loc, input.getType());
    if (failed(type))
      return failure();
    if (type->getElementType() != first->getElementType())
      return emitOptionalError(loc, "input #", index + 1, " has element type ",
                               type->getElementType(), " but input #0 has ",
                               first->getElementType());
    if (type->getRank() != rank)
      return emitOptionalError(loc, "input #", index + 1, " has rank ",
                               type->getRank(), " but input #0 has rank ",
                               rank);
    for (int64_t d = 0; d < rank; ++d) {
      if (d != *dim && type->getDimSize(d) != shape[d])
        return emitOptionalError(loc, "input #", index + 1, " has shape ",
                                 formatShape(type->getShape()),
                                 " but input #0 has shape ",
                                 formatShape(first->getShape()), " (only dim ",
                                 *dim, " may differ)");
    }
    shape[*dim] += type->getDimSize(*dim);
  }
  inferred.push_back(RankedTensorType::get(shape, first->getElementType()));
  return success();
}

//===----------------------------------------------------------------------===//
// PadOp
//===----------------------------------------------------------------------===//

LogicalResult PadOp::inferReturnTypes(MLIRContext *,
                                      std::optional<Location> loc,
                                      Adaptor adaptor,
                                      SmallVectorImpl<Type> &inferred) {
  FailureOr<RankedTensorType> x = rankedOperand(loc, adaptor.getX().getType());
  if (failed(x))
    return failure();
  int64_t rank = x->getRank();
  ArrayRef<int64_t> low = adaptor.getLow(), high = adaptor.getHigh();
  if (static_cast<int64_t>(low.size()) != rank ||
      static_cast<int64_t>(high.size()) != rank)
    return emitOptionalError(loc, "low ", formatList(low), " and high ",
                             formatList(high),
                             " need one entry per dimension of the operand "
                             "(rank ",
                             rank, ")");
  SmallVector<int64_t> shape;
  for (int64_t d = 0; d < rank; ++d) {
    if (low[d] < 0 || high[d] < 0)
      return emitOptionalError(loc, "dimension ", d,
                               ": padding must be non-negative, got low ",
                               low[d], " and high ", high[d]);
    shape.push_back(x->getDimSize(d) + low[d] + high[d]);
  }
  inferred.push_back(RankedTensorType::get(shape, x->getElementType()));
  return success();
}

LogicalResult PadOp::verify() {
  // The padding value is stored as f64 for every element type; an integer
  // tensor can only be padded with a value it holds exactly, otherwise the
  // padded elements would depend on how codegen rounds or wraps.
  auto elementType = dyn_cast<IntegerType>(getType().getElementType());
  if (!elementType)
    return success();
  llvm::APSInt value(elementType.getWidth(),
                     /*isUnsigned=*/elementType.getWidth() == 1);
  bool isExact = false;
  llvm::APFloat::opStatus status =
      getValue().convertToInteger(value, llvm::APFloat::rmTowardZero, &isExact);
  if (status != llvm::APFloat::opOK || !isExact)
    return emitOpError("padding value ")
           << getValue().convertToDouble() << " is not representable in "
           << elementType;
  return success();
}

//===----------------------------------------------------------------------===//
// IotaOp
//===----------------------------------------------------------------------===//

LogicalResult IotaOp::verify() {
  RankedTensorType type = getType();
  std::optional<int64_t> dim = normalizeDim(getDim(), type.getRank());
  if (!dim)
    return emitOpError("dim ")
           << getDim() << " is out of range for rank " << type.getRank();
  // Indices must come out exact: a float type holds consecutive integers
  // only up to 2^(mantissa bits + 1) (256 for bf16, 2048 for f16).
  if (auto floatType = dyn_cast<FloatType>(type.getElementType())) {
    int64_t size = type.getDimSize(*dim);
    unsigned precision = floatType.getFPMantissaWidth();
    if (precision < 63 && size - 1 > (int64_t(1) << precision))
      return emitOpError("index ") << size - 1 << " along dim " << *dim
                                   << " is not exact in " << floatType;
  }
  return success();
}
