//===- TfcConstantFolding.cpp - folding tfc ops on constants --------------===//

#include "dialects/tfc/TfcConstantFolding.h"

#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/SmallVector.h"

using namespace mlir;
using namespace mlir::tfc;
using llvm::APFloat;
using llvm::APInt;

namespace {

/// Reads every element of a dense constant as FoldScalars.
SmallVector<FoldScalar> readScalars(DenseElementsAttr attr, bool splatOnly) {
  SmallVector<FoldScalar> out;
  int64_t count = splatOnly ? 1 : attr.getNumElements();
  if (isa<FloatType>(attr.getElementType())) {
    auto values = attr.getValues<APFloat>();
    for (int64_t i = 0; i < count; ++i)
      out.push_back(values[i]);
  } else {
    auto values = attr.getValues<APInt>();
    for (int64_t i = 0; i < count; ++i)
      out.push_back(values[i]);
  }
  return out;
}

/// Builds a constant of `type` from scalars (one scalar means a splat).
/// Null if some scalar has the wrong kind for the element type.
Attribute buildConstant(ShapedType type, ArrayRef<FoldScalar> scalars) {
  Type element = type.getElementType();
  if (isa<FloatType>(element)) {
    SmallVector<APFloat> values;
    for (const FoldScalar &s : scalars) {
      if (!std::holds_alternative<APFloat>(s))
        return {};
      values.push_back(std::get<APFloat>(s));
    }
    return DenseElementsAttr::get(type, values);
  }
  SmallVector<APInt> values;
  for (const FoldScalar &s : scalars) {
    if (!std::holds_alternative<APInt>(s))
      return {};
    values.push_back(std::get<APInt>(s));
  }
  return DenseElementsAttr::get(type, values);
}

/// Linear index into an operand of shape `shape` broadcast to `resultShape`.
int64_t broadcastIndex(int64_t linear, ArrayRef<int64_t> resultShape,
                       ArrayRef<int64_t> shape) {
  int64_t index = 0, stride = 1;
  int64_t offset = resultShape.size() - shape.size();
  for (int64_t d = resultShape.size() - 1; d >= 0; --d) {
    int64_t coord = linear % resultShape[d];
    linear /= resultShape[d];
    if (d >= offset) {
      int64_t size = shape[d - offset];
      index += (size == 1 ? 0 : coord) * stride;
      stride *= size;
    }
  }
  return index;
}

bool foldable(DenseElementsAttr attr) {
  return attr && (attr.isSplat() || attr.getNumElements() <= kMaxFoldedElements);
}

} // namespace

Attribute tfc::foldUnary(Attribute operand, ShapedType resultType,
                         UnaryScalarFn fn) {
  auto attr = dyn_cast_or_null<DenseElementsAttr>(operand);
  if (!foldable(attr) || !resultType.hasStaticShape())
    return {};
  SmallVector<FoldScalar> results;
  for (const FoldScalar &s : readScalars(attr, attr.isSplat())) {
    std::optional<FoldScalar> r = fn(s);
    if (!r)
      return {};
    results.push_back(*r);
  }
  return buildConstant(resultType, results);
}

Attribute tfc::foldBinary(Attribute lhs, Attribute rhs, ShapedType resultType,
                          BinaryScalarFn fn) {
  auto l = dyn_cast_or_null<DenseElementsAttr>(lhs);
  auto r = dyn_cast_or_null<DenseElementsAttr>(rhs);
  if (!foldable(l) || !foldable(r) || !resultType.hasStaticShape())
    return {};
  bool splat = l.isSplat() && r.isSplat();
  if (!splat && resultType.getNumElements() > kMaxFoldedElements)
    return {};
  SmallVector<FoldScalar> ls = readScalars(l, l.isSplat());
  SmallVector<FoldScalar> rs = readScalars(r, r.isSplat());
  int64_t count = splat ? 1 : resultType.getNumElements();
  ArrayRef<int64_t> shape = resultType.getShape();
  SmallVector<FoldScalar> results;
  for (int64_t i = 0; i < count; ++i) {
    const FoldScalar &a =
        l.isSplat() ? ls[0] : ls[broadcastIndex(i, shape, l.getType().getShape())];
    const FoldScalar &b =
        r.isSplat() ? rs[0] : rs[broadcastIndex(i, shape, r.getType().getShape())];
    std::optional<FoldScalar> v = fn(a, b);
    if (!v)
      return {};
    results.push_back(*v);
  }
  return buildConstant(resultType, results);
}

APFloat tfc::convertFloat(APFloat value, const llvm::fltSemantics &semantics) {
  bool losesInfo = false;
  value.convert(semantics, APFloat::rmNearestTiesToEven, &losesInfo);
  return value;
}

APFloat tfc::applyInDouble(const APFloat &like, double (*fn)(double)) {
  double x = convertFloat(like, APFloat::IEEEdouble()).convertToDouble();
  return convertFloat(APFloat(fn(x)), like.getSemantics());
}

bool tfc::isSplatOf(Attribute attr, double value) {
  auto dense = dyn_cast_or_null<DenseElementsAttr>(attr);
  if (!dense || !dense.isSplat())
    return false;
  if (isa<FloatType>(dense.getElementType()))
    return convertFloat(dense.getSplatValue<APFloat>(), APFloat::IEEEdouble())
               .convertToDouble() == value;
  APInt v = dense.getSplatValue<APInt>();
  if (dense.getElementType().isInteger(1))
    return v.getZExtValue() == static_cast<uint64_t>(value);
  return static_cast<double>(v.getSExtValue()) == value;
}
