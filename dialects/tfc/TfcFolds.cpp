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
#include <type_traits>

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
TFC_FOLD_FLOAT_UNARY(ErfOp, std::erf(x))
TFC_FOLD_FLOAT_UNARY(CosOp, std::cos(x))
TFC_FOLD_FLOAT_UNARY(SinOp, std::sin(x))
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

OpFoldResult Atan2Op::fold(FoldAdaptor adaptor) {
  // Evaluated in double and rounded once, as the float unary ops fold.
  return foldBinary(
      adaptor.getLhs(), adaptor.getRhs(), getType(),
      [](const FoldScalar &a, const FoldScalar &b) -> std::optional<FoldScalar> {
        const APFloat &y = std::get<APFloat>(a);
        auto toDouble = [](const APFloat &f) {
          return convertFloat(f, APFloat::IEEEdouble()).convertToDouble();
        };
        return FoldScalar(convertFloat(
            APFloat(std::atan2(toDouble(y), toDouble(std::get<APFloat>(b)))),
            y.getSemantics()));
      });
}

OpFoldResult FmodOp::fold(FoldAdaptor adaptor) {
  // std::fmod in double: exact, and so is the conversion back (the remainder
  // of two values of a float type is a value of that type).
  return foldBinary(
      adaptor.getLhs(), adaptor.getRhs(), getType(),
      [](const FoldScalar &a, const FoldScalar &b) -> std::optional<FoldScalar> {
        const APFloat &x = std::get<APFloat>(a);
        auto toDouble = [](const APFloat &f) {
          return convertFloat(f, APFloat::IEEEdouble()).convertToDouble();
        };
        return FoldScalar(convertFloat(
            APFloat(std::fmod(toDouble(x), toDouble(std::get<APFloat>(b)))),
            x.getSemantics()));
      });
}

namespace {
/// True when `attr` is a splat integer constant with every bit set (-1, or
/// true on i1).
bool isSplatAllOnes(Attribute attr) {
  auto dense = dyn_cast_or_null<DenseElementsAttr>(attr);
  return dense && dense.isSplat() && isa<IntegerType>(dense.getElementType()) &&
         dense.getSplatValue<APInt>().isAllOnes();
}

/// Folds a bitwise binary op: `x op x` to x for and and or, `x op c` and
/// `c op x` to x when c is a splat of the op's identity (all ones for and,
/// zero for or and xor) and the broadcast keeps x's type, and constants
/// elementwise on their APInts (i1 included, at its width of one bit).
template <typename OpT>
OpFoldResult foldBitwise(OpT op, typename OpT::FoldAdaptor adaptor,
                         APInt (*fn)(const APInt &, const APInt &)) {
  constexpr bool isAnd = std::is_same_v<OpT, BitwiseAndOp>;
  Value lhs = op.getLhs(), rhs = op.getRhs();
  Type type = op.getType();
  if (!std::is_same_v<OpT, BitwiseXorOp> && lhs == rhs)
    return lhs;
  auto isIdentity = [&](Attribute c) {
    return isAnd ? isSplatAllOnes(c) : isSplatOf(c, 0.0);
  };
  if (isIdentity(adaptor.getRhs()) && lhs.getType() == type)
    return lhs;
  if (isIdentity(adaptor.getLhs()) && rhs.getType() == type)
    return rhs;
  return foldBinary(
      adaptor.getLhs(), adaptor.getRhs(), cast<ShapedType>(type),
      [&](const FoldScalar &a, const FoldScalar &b) -> std::optional<FoldScalar> {
        return FoldScalar(fn(std::get<APInt>(a), std::get<APInt>(b)));
      });
}
} // namespace

OpFoldResult BitwiseAndOp::fold(FoldAdaptor adaptor) {
  return foldBitwise(*this, adaptor,
                     [](const APInt &a, const APInt &b) { return a & b; });
}

OpFoldResult BitwiseOrOp::fold(FoldAdaptor adaptor) {
  return foldBitwise(*this, adaptor,
                     [](const APInt &a, const APInt &b) { return a | b; });
}

OpFoldResult BitwiseXorOp::fold(FoldAdaptor adaptor) {
  return foldBitwise(*this, adaptor,
                     [](const APInt &a, const APInt &b) { return a ^ b; });
}

OpFoldResult BitwiseNotOp::fold(FoldAdaptor adaptor) {
  // ~~x == x; ~c flips every bit of c's width (i1: logical not).
  if (auto inner = getX().getDefiningOp<BitwiseNotOp>())
    return inner.getX();
  return foldUnary(adaptor.getX(), getType(),
                   [](const FoldScalar &x) -> std::optional<FoldScalar> {
                     return FoldScalar(~std::get<APInt>(x));
                   });
}

namespace {
/// Folds a shift: `x op 0` to x, `0 op x` to 0 (when the broadcast keeps
/// the operand's type), and constants elementwise at their width with
/// common/ScalarOps.h's out-of-range rule (`fn` gets an in-range amount).
template <typename OpT>
OpFoldResult foldShift(OpT op, typename OpT::FoldAdaptor adaptor,
                       APInt (*fn)(const APInt &, unsigned)) {
  constexpr bool isLeft = std::is_same_v<OpT, ShiftLeftOp>;
  Value lhs = op.getLhs(), rhs = op.getRhs();
  Type type = op.getType();
  if (lhs.getType() == type &&
      (isSplatOf(adaptor.getRhs(), 0.0) || isSplatOf(adaptor.getLhs(), 0.0)))
    return lhs;
  return foldBinary(
      adaptor.getLhs(), adaptor.getRhs(), cast<ShapedType>(type),
      [&](const FoldScalar &a, const FoldScalar &b) -> std::optional<FoldScalar> {
        const APInt &x = std::get<APInt>(a), &n = std::get<APInt>(b);
        unsigned width = x.getBitWidth();
        if (n.isNegative() || n.uge(width))
          return FoldScalar(isLeft ? APInt::getZero(width)
                                   : fn(x, width - 1));
        return FoldScalar(fn(x, static_cast<unsigned>(n.getZExtValue())));
      });
}
} // namespace

OpFoldResult ShiftLeftOp::fold(FoldAdaptor adaptor) {
  return foldShift(*this, adaptor,
                   [](const APInt &x, unsigned n) { return x.shl(n); });
}

OpFoldResult ShiftRightOp::fold(FoldAdaptor adaptor) {
  return foldShift(*this, adaptor,
                   [](const APInt &x, unsigned n) { return x.ashr(n); });
}

OpFoldResult CompareOp::fold(FoldAdaptor adaptor) {
  CompareDirection direction = getDirection();
  bool isBool = getElementTypeOrSelf(getLhs().getType()).isInteger(1);
  return foldBinary(
      adaptor.getLhs(), adaptor.getRhs(), getType(),
      [&](const FoldScalar &a, const FoldScalar &b) -> std::optional<FoldScalar> {
        bool result = false;
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
    if (!toFloat)
      return false;
    // Every finite value (subnormals included) of `from` must fit: at least
    // as many mantissa bits, as large an exponent and as small a smallest
    // subnormal. (bf16 -> f32 is exact though bf16's subnormals are f32's.)
    const llvm::fltSemantics &f = fromFloat.getFloatSemantics();
    const llvm::fltSemantics &t = toFloat.getFloatSemantics();
    int fromPrecision = APFloat::semanticsPrecision(f);
    int toPrecision = APFloat::semanticsPrecision(t);
    return toPrecision >= fromPrecision &&
           APFloat::semanticsMaxExponent(t) >=
               APFloat::semanticsMaxExponent(f) &&
           APFloat::semanticsMinExponent(t) - toPrecision <=
               APFloat::semanticsMinExponent(f) - fromPrecision;
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

//===----------------------------------------------------------------------===//
// Reduction ops
//===----------------------------------------------------------------------===//

namespace {
/// A reduction whose result type equals its operand's reduces only size-1
/// dimensions with keepdim: every output element is the one input element
/// (a sum of one value, its mean over one, its max), so it folds to `x`.
/// The widening to fp32 and back is exact, so 16-bit types fold too.
template <typename ReduceOp> OpFoldResult foldSingletonReduce(ReduceOp op) {
  if (op.getX().getType() == op.getType())
    return op.getX();
  return {};
}

/// A reduction over size-1 dimensions only, without keepdim, moves no data
/// either: it is a reshape of `x` (a batch-1 model's position-embedding
/// gradient summed over the batch was a kernel of its own). Equal element
/// counts mean every reduced dimension has size 1, or that there are no
/// elements at all.
template <typename ReduceOp>
struct SingletonReduceToReshape : OpRewritePattern<ReduceOp> {
  using OpRewritePattern<ReduceOp>::OpRewritePattern;
  LogicalResult matchAndRewrite(ReduceOp op,
                                PatternRewriter &rewriter) const override {
    auto from = dyn_cast<RankedTensorType>(op.getX().getType());
    auto to = dyn_cast<RankedTensorType>(op.getType());
    if (!from || !to || from == to || !from.hasStaticShape() ||
        !to.hasStaticShape() || from.getNumElements() != to.getNumElements())
      return failure();
    rewriter.replaceOpWithNewOp<ReshapeOp>(op, to, op.getX());
    return success();
  }
};
} // namespace

OpFoldResult ReduceSumOp::fold(FoldAdaptor) {
  return foldSingletonReduce(*this);
}

void ReduceSumOp::getCanonicalizationPatterns(RewritePatternSet &patterns,
                                              MLIRContext *context) {
  patterns.add<SingletonReduceToReshape<ReduceSumOp>>(context);
}

void ReduceMeanOp::getCanonicalizationPatterns(RewritePatternSet &patterns,
                                               MLIRContext *context) {
  patterns.add<SingletonReduceToReshape<ReduceMeanOp>>(context);
}

void ReduceMaxOp::getCanonicalizationPatterns(RewritePatternSet &patterns,
                                              MLIRContext *context) {
  patterns.add<SingletonReduceToReshape<ReduceMaxOp>>(context);
}

OpFoldResult ReduceMeanOp::fold(FoldAdaptor) {
  return foldSingletonReduce(*this);
}

OpFoldResult ReduceMaxOp::fold(FoldAdaptor adaptor) {
  if (OpFoldResult folded = foldSingletonReduce(*this))
    return folded;
  // The maximum of equal values is that value (NaN included), whatever the
  // number of elements; sums and means of splats round and are not folded.
  if (auto splat = dyn_cast_or_null<SplatElementsAttr>(adaptor.getX()))
    return DenseElementsAttr::get(getType(), splat.getSplatValue<Attribute>());
  return {};
}

//===----------------------------------------------------------------------===//
// Shape ops
//===----------------------------------------------------------------------===//
// Shape ops only move elements, so every fold below is exact by
// construction. When the result type equals the operand type, reshape,
// broadcast_to, slice and pad are the identity: for slice and pad the
// inferred size equals the operand size only when the op covers (slice) or
// leaves (pad) the whole tensor.

namespace {
/// A splat constant re-typed to `type`: moving elements of a splat gives the
/// same splat. Null when `operand` is not a splat constant.
Attribute foldSplat(Attribute operand, ShapedType type) {
  auto dense = dyn_cast_or_null<DenseElementsAttr>(operand);
  if (!dense || !dense.isSplat())
    return {};
  return dense.resizeSplat(type);
}

bool isIdentityPermutation(ArrayRef<int64_t> permutation) {
  for (auto [index, dim] : llvm::enumerate(permutation))
    if (static_cast<int64_t>(index) != dim)
      return false;
  return true;
}

/// x * ones -> broadcast_to(x) when the ones widen x's shape (MulOp's folder
/// handles the same-shape case; a fold cannot create the broadcast op).
struct MulByOnesToBroadcast : OpRewritePattern<MulOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(MulOp op,
                                PatternRewriter &rewriter) const override {
    Value operands[] = {op.getLhs(), op.getRhs()};
    for (int i = 0; i < 2; ++i) {
      Value x = operands[i], ones = operands[1 - i];
      Attribute value;
      if (!matchPattern(ones, m_Constant(&value)) || !isSplatOf(value, 1.0))
        continue;
      if (x.getType() == op.getType())
        continue;
      rewriter.replaceOpWithNewOp<BroadcastToOp>(op, op.getType(), x);
      return success();
    }
    return rewriter.notifyMatchFailure(op, "no splat-one operand to drop");
  }
};
} // namespace

void MulOp::getCanonicalizationPatterns(RewritePatternSet &patterns,
                                        MLIRContext *context) {
  patterns.add<MulByOnesToBroadcast>(context);
}

OpFoldResult ReshapeOp::fold(FoldAdaptor adaptor) {
  if (getX().getType() == getType())
    return getX();
  // Reshapes are row-major reinterpretations, so a chain is one reshape.
  if (auto inner = getX().getDefiningOp<ReshapeOp>()) {
    if (inner.getX().getType() == getType())
      return inner.getX();
    getXMutable().assign(inner.getX());
    return getResult();
  }
  // A reshaped constant shares its data; non-splats only up to the limit so
  // folding never duplicates large literals.
  auto dense = dyn_cast_or_null<DenseElementsAttr>(adaptor.getX());
  if (dense &&
      (dense.isSplat() || dense.getNumElements() <= kMaxFoldedElements))
    return dense.reshape(getType());
  return {};
}

OpFoldResult TransposeOp::fold(FoldAdaptor adaptor) {
  ArrayRef<int64_t> permutation = getPermutation();
  if (isIdentityPermutation(permutation))
    return getX();
  if (auto inner = getX().getDefiningOp<TransposeOp>()) {
    // Result dim i is inner's dim permutation[i], which is x's dim
    // inner.permutation[permutation[i]].
    SmallVector<int64_t> composed;
    for (int64_t dim : permutation)
      composed.push_back(inner.getPermutation()[dim]);
    if (isIdentityPermutation(composed))
      return inner.getX();
    setPermutation(composed);
    getXMutable().assign(inner.getX());
    return getResult();
  }
  return foldSplat(adaptor.getX(), getType());
}

OpFoldResult BroadcastToOp::fold(FoldAdaptor adaptor) {
  if (getX().getType() == getType())
    return getX();
  // Broadcasting is transitive: each size of x is 1 or equals the middle
  // size, which is 1 or equals the final size.
  if (auto inner = getX().getDefiningOp<BroadcastToOp>()) {
    getXMutable().assign(inner.getX());
    return getResult();
  }
  return foldSplat(adaptor.getX(), getType());
}

OpFoldResult SliceOp::fold(FoldAdaptor adaptor) {
  if (getX().getType() == getType())
    return getX();
  return foldSplat(adaptor.getX(), getType());
}

OpFoldResult PadOp::fold(FoldAdaptor) {
  if (getX().getType() == getType())
    return getX();
  return {};
}

OpFoldResult ConcatOp::fold(FoldAdaptor) {
  if (getInputs().size() == 1 && getInputs()[0].getType() == getType())
    return getInputs()[0];
  return {};
}

namespace {
/// embedding(table, iota) over 1-D ids 0..N-1 with N <= V reads rows 0..N-1
/// in order: the first N rows of the table. Every id is in range, so this
/// is exact; as a slice it is a view that fuses into its readers instead of
/// a gather kernel (and its gradient a pad instead of a one-hot GEMM).
struct EmbeddingOfIota : OpRewritePattern<EmbeddingOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(EmbeddingOp op,
                                PatternRewriter &rewriter) const override {
    auto iota = op.getIds().getDefiningOp<IotaOp>();
    auto idsType = cast<RankedTensorType>(op.getIds().getType());
    if (!iota || idsType.getRank() != 1)
      return rewriter.notifyMatchFailure(op, "ids are not a 1-D iota");
    ArrayRef<int64_t> table = op.getTable().getType().getShape();
    int64_t n = idsType.getDimSize(0);
    if (n > table[0])
      return rewriter.notifyMatchFailure(op, "iota longer than the table");
    if (n == table[0]) {
      rewriter.replaceOp(op, op.getTable());
      return success();
    }
    rewriter.replaceOpWithNewOp<SliceOp>(
        op, op.getType(), op.getTable(), rewriter.getDenseI64ArrayAttr({0, 0}),
        rewriter.getDenseI64ArrayAttr({n, table[1]}), DenseI64ArrayAttr());
    return success();
  }
};
} // namespace

void EmbeddingOp::getCanonicalizationPatterns(RewritePatternSet &patterns,
                                              MLIRContext *context) {
  patterns.add<EmbeddingOfIota>(context);
}

namespace {
/// embedding_grad with ids 0..N-1 in row-major order (a 1-D iota, perhaps
/// reshaped: a position embedding's gradient) and N <= V: row i of dy is
/// row i of the table gradient and rows N.. get nothing, a pad of dy with
/// zero rows (a view that fuses into its readers) instead of a scatter
/// kernel. Every row is one dy row, so this is exact.
struct EmbeddingGradOfIota : OpRewritePattern<EmbeddingGradOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(EmbeddingGradOp op,
                                PatternRewriter &rewriter) const override {
    Value root = op.getIds();
    while (auto reshape = root.getDefiningOp<ReshapeOp>())
      root = reshape.getX();
    if (!root.getDefiningOp<IotaOp>() ||
        cast<RankedTensorType>(root.getType()).getRank() != 1)
      return rewriter.notifyMatchFailure(op, "ids are not a 1-D iota");
    auto tableType = cast<RankedTensorType>(op.getType());
    int64_t n = cast<RankedTensorType>(root.getType()).getNumElements();
    int64_t vocab = tableType.getDimSize(0), width = tableType.getDimSize(1);
    if (n == 0 || n > vocab)
      return rewriter.notifyMatchFailure(op, "iota empty or longer than V");
    Location loc = op.getLoc();
    auto rows = RankedTensorType::get({n, width}, tableType.getElementType());
    Value result = op.getDy();
    if (result.getType() != rows)
      result = rewriter.create<ReshapeOp>(loc, rows, result);
    if (n < vocab)
      result = rewriter.create<PadOp>(
          loc, tableType, result, rewriter.getDenseI64ArrayAttr({0, 0}),
          rewriter.getDenseI64ArrayAttr({vocab - n, 0}),
          rewriter.getF64FloatAttr(0.0));
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// embedding_grad scattering nothing (no ids) or into a table without
/// elements is an all-zero table: no kernel at all.
struct EmptyEmbeddingGrad : OpRewritePattern<EmbeddingGradOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(EmbeddingGradOp op,
                                PatternRewriter &rewriter) const override {
    auto tableType = cast<RankedTensorType>(op.getType());
    if (op.getIds().getType().getNumElements() != 0 &&
        tableType.getNumElements() != 0)
      return rewriter.notifyMatchFailure(op, "something is scattered");
    rewriter.replaceOpWithNewOp<ConstantOp>(
        op, DenseElementsAttr::get(
                tableType,
                rewriter.getFloatAttr(tableType.getElementType(), 0.0)
                    .getValue()));
    return success();
  }
};
} // namespace

void EmbeddingGradOp::getCanonicalizationPatterns(RewritePatternSet &patterns,
                                                  MLIRContext *context) {
  patterns.add<EmbeddingGradOfIota, EmptyEmbeddingGrad>(context);
}
