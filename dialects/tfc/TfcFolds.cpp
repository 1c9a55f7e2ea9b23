//===- TfcFolds.cpp - folders and canonicalization patterns of tfc ops ----===//
//
// Every fold here is exact: it never changes a value a program computes
// (beyond the rounding the folded op itself performs), so canonicalization is
// safe on training graphs whose numerics are checked bit-for-bit.
//
//===----------------------------------------------------------------------===//

#include "dialects/tfc/TfcConstantFolding.h"
#include "dialects/tfc/TfcOps.h"

#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "llvm/ADT/APSInt.h"

#include <cmath>

using namespace mlir;
using namespace mlir::tfc;
using llvm::APFloat;
using llvm::APInt;

//===----------------------------------------------------------------------===//
// Elementwise unary ops
//===----------------------------------------------------------------------===//

namespace {
/// Folds a float-only unary op whose math is `fn` evaluated in double.
Attribute foldFloatUnary(Attribute operand, Type resultType,
                         double (*fn)(double)) {
  return foldUnary(operand, cast<ShapedType>(resultType),
                   [&](const FoldScalar &x) -> std::optional<FoldScalar> {
                     if (!std::holds_alternative<APFloat>(x))
                       return std::nullopt;
                     return applyInDouble(std::get<APFloat>(x), fn);
                   });
}
} // namespace

#define TFC_FOLD_FLOAT_UNARY(OP, EXPR)                                         \
  OpFoldResult OP::fold(FoldAdaptor adaptor) {                                 \
    return foldFloatUnary(adaptor.getX(), getType(),                           \
                          [](double x) -> double { return EXPR; });            \
  }
TFC_FOLD_FLOAT_UNARY(ExpOp, std::exp(x))
TFC_FOLD_FLOAT_UNARY(LogOp, std::log(x))
TFC_FOLD_FLOAT_UNARY(SqrtOp, std::sqrt(x))
TFC_FOLD_FLOAT_UNARY(RsqrtOp, 1.0 / std::sqrt(x))
TFC_FOLD_FLOAT_UNARY(TanhOp, std::tanh(x))
TFC_FOLD_FLOAT_UNARY(SigmoidOp, 1.0 / (1.0 + std::exp(-x)))
TFC_FOLD_FLOAT_UNARY(ReluOp, std::isnan(x) ? x : (x > 0.0 ? x : 0.0))
TFC_FOLD_FLOAT_UNARY(SiluOp, x / (1.0 + std::exp(-x)))
#undef TFC_FOLD_FLOAT_UNARY

OpFoldResult NegOp::fold(FoldAdaptor adaptor) {
  // neg(neg(x)) == x exactly, also for integers (two's complement wraps).
  if (auto inner = getX().getDefiningOp<NegOp>())
    return inner.getX();
  return foldUnary(adaptor.getX(), getType(),
                   [](const FoldScalar &x) -> std::optional<FoldScalar> {
                     if (auto *f = std::get_if<APFloat>(&x))
                       return llvm::neg(*f);
                     return -std::get<APInt>(x);
                   });
}

OpFoldResult AbsOp::fold(FoldAdaptor adaptor) {
  // abs is idempotent.
  if (auto inner = getX().getDefiningOp<AbsOp>())
    return inner.getResult();
  return foldUnary(adaptor.getX(), getType(),
                   [](const FoldScalar &x) -> std::optional<FoldScalar> {
                     if (auto *f = std::get_if<APFloat>(&x))
                       return llvm::abs(*f);
                     return std::get<APInt>(x).abs();
                   });
}

OpFoldResult PowOp::fold(FoldAdaptor adaptor) {
  double exponent = getExponent().convertToDouble();
  if (exponent == 1.0)
    return getX();
  return foldUnary(adaptor.getX(), getType(),
                   [&](const FoldScalar &x) -> std::optional<FoldScalar> {
                     const APFloat &f = std::get<APFloat>(x);
                     double d = convertFloat(f, APFloat::IEEEdouble())
                                    .convertToDouble();
                     return convertFloat(APFloat(std::pow(d, exponent)),
                                         f.getSemantics());
                   });
}

//===----------------------------------------------------------------------===//
// Elementwise binary ops
//===----------------------------------------------------------------------===//

namespace {
/// Folds a binary op given its float and its (signed) integer semantics.
template <typename FloatFn, typename IntFn>
Attribute foldArith(Attribute lhs, Attribute rhs, Type resultType,
                    FloatFn floatFn, IntFn intFn) {
  return foldBinary(
      lhs, rhs, cast<ShapedType>(resultType),
      [&](const FoldScalar &a, const FoldScalar &b) -> std::optional<FoldScalar> {
        if (auto *fa = std::get_if<APFloat>(&a))
          return FoldScalar(floatFn(*fa, std::get<APFloat>(b)));
        return intFn(std::get<APInt>(a), std::get<APInt>(b));
      });
}

std::optional<FoldScalar> wrap(APInt v) { return FoldScalar(std::move(v)); }
} // namespace

OpFoldResult AddOp::fold(FoldAdaptor adaptor) {
  return foldArith(
      adaptor.getLhs(), adaptor.getRhs(), getType(),
      [](APFloat a, const APFloat &b) { return a + b; },
      [](const APInt &a, const APInt &b) { return wrap(a + b); });
}

OpFoldResult SubOp::fold(FoldAdaptor adaptor) {
  return foldArith(
      adaptor.getLhs(), adaptor.getRhs(), getType(),
      [](APFloat a, const APFloat &b) { return a - b; },
      [](const APInt &a, const APInt &b) { return wrap(a - b); });
}

OpFoldResult MulOp::fold(FoldAdaptor adaptor) {
  // x * 1 == x exactly (also for NaN, inf and -0), as long as the
  // broadcast does not change the shape.
  if (isSplatOf(adaptor.getRhs(), 1.0) && getLhs().getType() == getType())
    return getLhs();
  if (isSplatOf(adaptor.getLhs(), 1.0) && getRhs().getType() == getType())
    return getRhs();
  return foldArith(
      adaptor.getLhs(), adaptor.getRhs(), getType(),
      [](APFloat a, const APFloat &b) { return a * b; },
      [](const APInt &a, const APInt &b) { return wrap(a * b); });
}

OpFoldResult DivOp::fold(FoldAdaptor adaptor) {
  return foldArith(
      adaptor.getLhs(), adaptor.getRhs(), getType(),
      [](APFloat a, const APFloat &b) { return a / b; },
      [](const APInt &a, const APInt &b) -> std::optional<FoldScalar> {
        // Division by zero and INT_MIN / -1 are left to run time.
        if (b.isZero() || (a.isMinSignedValue() && b.isAllOnes()))
          return std::nullopt;
        return wrap(a.sdiv(b));
      });
}

OpFoldResult MaximumOp::fold(FoldAdaptor adaptor) {
  return foldArith(
      adaptor.getLhs(), adaptor.getRhs(), getType(),
      [](const APFloat &a, const APFloat &b) { return llvm::maximum(a, b); },
      [](const APInt &a, const APInt &b) {
        return wrap(llvm::APIntOps::smax(a, b));
      });
}

OpFoldResult MinimumOp::fold(FoldAdaptor adaptor) {
  return foldArith(
      adaptor.getLhs(), adaptor.getRhs(), getType(),
      [](const APFloat &a, const APFloat &b) { return llvm::minimum(a, b); },
      [](const APInt &a, const APInt &b) {
        return wrap(llvm::APIntOps::smin(a, b));
      });
}

OpFoldResult CompareOp::fold(FoldAdaptor adaptor) {
  CompareDirection direction = getDirection();
  bool isBool = getElementTypeOrSelf(getLhs().getType()).isInteger(1);
  return foldBinary(
      adaptor.getLhs(), adaptor.getRhs(), getType(),
      [&](const FoldScalar &a, const FoldScalar &b) -> std::optional<FoldScalar> {
        bool result;
        if (auto *fa = std::get_if<APFloat>(&a)) {
          APFloat::cmpResult c = fa->compare(std::get<APFloat>(b));
          switch (direction) {
          case CompareDirection::eq: result = c == APFloat::cmpEqual; break;
          case CompareDirection::ne: result = c != APFloat::cmpEqual; break;
          case CompareDirection::lt: result = c == APFloat::cmpLessThan; break;
          case CompareDirection::le:
            result = c == APFloat::cmpLessThan || c == APFloat::cmpEqual;
            break;
          case CompareDirection::gt: result = c == APFloat::cmpGreaterThan; break;
          case CompareDirection::ge:
            result = c == APFloat::cmpGreaterThan || c == APFloat::cmpEqual;
            break;
          }
        } else {
          const APInt &ia = std::get<APInt>(a), &ib = std::get<APInt>(b);
          // i1 compares as unsigned (false < true), wider integers as signed.
          int c = isBool ? (ia.ult(ib) ? -1 : ia == ib ? 0 : 1)
                         : (ia.slt(ib) ? -1 : ia == ib ? 0 : 1);
          switch (direction) {
          case CompareDirection::eq: result = c == 0; break;
          case CompareDirection::ne: result = c != 0; break;
          case CompareDirection::lt: result = c < 0; break;
          case CompareDirection::le: result = c <= 0; break;
          case CompareDirection::gt: result = c > 0; break;
          case CompareDirection::ge: result = c >= 0; break;
          }
        }
        return FoldScalar(APInt(1, result));
      });
}

OpFoldResult SelectOp::fold(FoldAdaptor adaptor) {
  Type type = getType();
  if (getOnTrue() == getOnFalse() && getOnTrue().getType() == type)
    return getOnTrue();
  auto condition = dyn_cast_or_null<DenseElementsAttr>(adaptor.getCondition());
  if (condition && condition.isSplat()) {
    Value chosen =
        condition.getSplatValue<APInt>().isZero() ? getOnFalse() : getOnTrue();
    if (chosen.getType() == type)
      return chosen;
  }
  return {};
}

//===----------------------------------------------------------------------===//
// ConvertOp and ConstantOp
//===----------------------------------------------------------------------===//

namespace {
/// True when every value of type `from` is exactly representable in `to`, so
/// converting through `to` and then on is the same as converting directly.
bool isExactConversion(Type from, Type to) {
  if (from == to || from.isInteger(1))
    return true;
  if (auto fromFloat = dyn_cast<FloatType>(from)) {
    auto toFloat = dyn_cast<FloatType>(to);
    return toFloat && APFloat::isRepresentableAsNormalIn(
                          fromFloat.getFloatSemantics(),
                          toFloat.getFloatSemantics());
  }
  // Integers: i32 fits i64 and f64's 53-bit mantissa.
  if (from.isInteger(32))
    return to.isInteger(64) || to.isF64();
  return false;
}

/// convert(convert(x : A -> B) : B -> C) -> convert(x : A -> C) when A -> B
/// loses nothing (e.g. f16 -> f32 -> bf16 becomes f16 -> bf16).
struct FoldExactConvertChain : OpRewritePattern<ConvertOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ConvertOp op,
                                PatternRewriter &rewriter) const override {
    auto inner = op.getX().getDefiningOp<ConvertOp>();
    if (!inner)
      return failure();
    Type source = getElementTypeOrSelf(inner.getX().getType());
    Type middle = getElementTypeOrSelf(inner.getType());
    if (!isExactConversion(source, middle))
      return rewriter.notifyMatchFailure(op, "inner conversion is lossy");
    rewriter.modifyOpInPlace(
        op, [&] { op.getXMutable().assign(inner.getX()); });
    return success();
  }
};

std::optional<FoldScalar> convertScalar(const FoldScalar &x, Type to) {
  if (auto *f = std::get_if<APFloat>(&x)) {
    if (auto toFloat = dyn_cast<FloatType>(to))
      return FoldScalar(convertFloat(*f, toFloat.getFloatSemantics()));
    if (to.isInteger(1))
      return FoldScalar(APInt(1, !f->isZero()));
    // Truncate toward zero like torch's .to(); NaN and out-of-range values
    // have no defined result, so they are not folded.
    llvm::APSInt result(to.getIntOrFloatBitWidth(), /*isUnsigned=*/false);
    bool isExact;
    if (f->convertToInteger(result, APFloat::rmTowardZero, &isExact) &
        APFloat::opInvalidOp)
      return std::nullopt;
    return FoldScalar(APInt(result));
  }
  const APInt &i = std::get<APInt>(x);
  bool isSigned = i.getBitWidth() != 1;
  if (auto toFloat = dyn_cast<FloatType>(to)) {
    APFloat result(toFloat.getFloatSemantics());
    result.convertFromAPInt(i, isSigned, APFloat::rmNearestTiesToEven);
    return FoldScalar(result);
  }
  unsigned width = to.getIntOrFloatBitWidth();
  if (width == 1)
    return FoldScalar(APInt(1, !i.isZero()));
  return FoldScalar(isSigned ? i.sextOrTrunc(width) : i.zextOrTrunc(width));
}
} // namespace

OpFoldResult ConvertOp::fold(FoldAdaptor adaptor) {
  if (getX().getType() == getType())
    return getX();
  Type to = getType().getElementType();
  return foldUnary(adaptor.getX(), getType(),
                   [&](const FoldScalar &x) { return convertScalar(x, to); });
}

void ConvertOp::getCanonicalizationPatterns(RewritePatternSet &patterns,
                                            MLIRContext *context) {
  patterns.add<FoldExactConvertChain>(context);
}

OpFoldResult ConstantOp::fold(FoldAdaptor) { return getValue(); }
