//===- TfcShapeUtils.cpp - shape and dtype rules shared by tfc ops --------===//

#include "dialects/tfc/TfcShapeUtils.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;

std::optional<SmallVector<int64_t>>
tfc::broadcastShapes(ArrayRef<int64_t> lhs, ArrayRef<int64_t> rhs) {
  size_t rank = std::max(lhs.size(), rhs.size());
  SmallVector<int64_t> result(rank);
  for (size_t i = 0; i < rank; ++i) {
    // Walk from the back; missing leading dimensions act as size 1.
    int64_t l = i < lhs.size() ? lhs[lhs.size() - 1 - i] : 1;
    int64_t r = i < rhs.size() ? rhs[rhs.size() - 1 - i] : 1;
    if (l != r && l != 1 && r != 1)
      return std::nullopt;
    result[rank - 1 - i] = l == 1 ? r : l;
  }
  return result;
}

bool tfc::isBroadcastableTo(ArrayRef<int64_t> from, ArrayRef<int64_t> to) {
  if (from.size() > to.size())
    return false;
  size_t offset = to.size() - from.size();
  for (size_t i = 0; i < from.size(); ++i)
    if (from[i] != 1 && from[i] != to[offset + i])
      return false;
  return true;
}

LogicalResult tfc::inferBroadcastType(std::optional<Location> loc,
                                      TypeRange operands, Type elementType,
                                      SmallVectorImpl<Type> &inferred) {
  SmallVector<int64_t> shape;
  for (Type type : operands) {
    auto tensor = dyn_cast<RankedTensorType>(type);
    if (!tensor)
      return emitOptionalError(loc, "expected ranked tensor operands");
    std::optional<SmallVector<int64_t>> merged =
        broadcastShapes(shape, tensor.getShape());
    if (!merged) {
      std::string shapes;
      llvm::raw_string_ostream os(shapes);
      llvm::interleaveComma(operands, os, [&](Type t) {
        os << formatShape(cast<RankedTensorType>(t).getShape());
      });
      return emitOptionalError(loc, "operands are not broadcast-compatible (",
                               os.str(), ")");
    }
    shape = std::move(*merged);
  }
  inferred.push_back(RankedTensorType::get(shape, elementType));
  return success();
}

std::optional<int64_t> tfc::normalizeDim(int64_t dim, int64_t rank) {
  if (dim < -rank || dim >= rank)
    return std::nullopt;
  return dim < 0 ? dim + rank : dim;
}

Type tfc::accumulationType(Type elementType) {
  if (elementType.isF16() || elementType.isBF16() || elementType.isF32())
    return Float32Type::get(elementType.getContext());
  return elementType;
}

std::string tfc::formatShape(ArrayRef<int64_t> shape) {
  if (shape.empty())
    return "scalar";
  std::string text;
  llvm::raw_string_ostream os(text);
  llvm::interleave(shape, os, "x");
  return os.str();
}
