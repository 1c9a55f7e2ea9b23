//===- TfcVjps.cpp - VJPs of elementwise, shape, reduction, matmul ops ----===//
//
// Each vjp() below returns the cotangents of an op's operands given the
// cotangent `g` of its result, with the derivative PyTorch's autograd uses
// (so gradients agree with torch.autograd also at ties and kinks: relu'(0) =
// 0, abs'(0) = 0, maximum splits a tie evenly). Broadcast operands get the
// broadcast cotangent summed back to their shape.
//
//===----------------------------------------------------------------------===//

#include "dialects/tfc/TfcVjps.h"

#include "dialects/tfc/TfcShapeUtils.h"

#include "llvm/ADT/STLExtras.h"

using namespace mlir;
using namespace mlir::tfc;

//===----------------------------------------------------------------------===//
// VjpBuilder
//===----------------------------------------------------------------------===//

Value VjpBuilder::scalar(Type elementType, double value) {
  auto type = RankedTensorType::get({}, elementType);
  return b.create<ConstantOp>(
      loc, DenseElementsAttr::get(
               type, b.getFloatAttr(elementType, value).getValue()));
}

Value VjpBuilder::zeros(RankedTensorType type) {
  Attribute zero = isa<FloatType>(type.getElementType())
                       ? Attribute(b.getFloatAttr(type.getElementType(), 0.0))
                       : Attribute(b.getIntegerAttr(type.getElementType(), 0));
  return b.create<ConstantOp>(loc, DenseElementsAttr::get(type, zero));
}

/// The broadcast type of `lhs` and `rhs` with `elementType`.
static RankedTensorType broadcastType(Value lhs, Value rhs, Type elementType) {
  auto shape = broadcastShapes(tensorTypeOf(lhs).getShape(),
                               tensorTypeOf(rhs).getShape());
  assert(shape && "VJP operands must broadcast");
  return RankedTensorType::get(*shape, elementType);
}

template <typename OpT>
static Value binary(OpBuilder &b, Location loc, Value lhs, Value rhs) {
  return b.create<OpT>(
      loc, broadcastType(lhs, rhs, tensorTypeOf(lhs).getElementType()), lhs,
      rhs);
}

Value VjpBuilder::add(Value lhs, Value rhs) {
  return binary<AddOp>(b, loc, lhs, rhs);
}
Value VjpBuilder::sub(Value lhs, Value rhs) {
  return binary<SubOp>(b, loc, lhs, rhs);
}
Value VjpBuilder::mul(Value lhs, Value rhs) {
  return binary<MulOp>(b, loc, lhs, rhs);
}
Value VjpBuilder::div(Value lhs, Value rhs) {
  return binary<DivOp>(b, loc, lhs, rhs);
}
Value VjpBuilder::neg(Value x) { return b.create<NegOp>(loc, x.getType(), x); }

Value VjpBuilder::compare(CompareDirection direction, Value lhs, Value rhs) {
  return b.create<CompareOp>(loc, broadcastType(lhs, rhs, b.getI1Type()),
                             direction, lhs, rhs);
}

Value VjpBuilder::select(Value condition, Value onTrue, Value onFalse) {
  auto shape = broadcastShapes(tensorTypeOf(onTrue).getShape(),
                               tensorTypeOf(onFalse).getShape());
  assert(shape && "select operands must broadcast");
  shape = broadcastShapes(*shape, tensorTypeOf(condition).getShape());
  assert(shape && "select operands must broadcast");
  auto type =
      RankedTensorType::get(*shape, tensorTypeOf(onTrue).getElementType());
  return b.create<SelectOp>(loc, type, condition, onTrue, onFalse);
}

Value VjpBuilder::reshape(Value x, ArrayRef<int64_t> shape) {
  if (tensorTypeOf(x).getShape() == shape)
    return x;
  return b.create<ReshapeOp>(
      loc, RankedTensorType::get(shape, tensorTypeOf(x).getElementType()), x);
}

Value VjpBuilder::convert(Value x, Type elementType) {
  if (tensorTypeOf(x).getElementType() == elementType)
    return x;
  return b.create<ConvertOp>(
      loc, RankedTensorType::get(tensorTypeOf(x).getShape(), elementType), x);
}

Value VjpBuilder::widen(Value x) {
  return convert(x, accumulationType(tensorTypeOf(x).getElementType()));
}

Value VjpBuilder::sumKeepDims(Value x, ArrayRef<int64_t> dims) {
  auto type = tensorTypeOf(x);
  SmallVector<int64_t> shape(type.getShape());
  for (int64_t d : dims)
    shape[d] = 1;
  return b.create<ReduceSumOp>(
      loc, RankedTensorType::get(shape, type.getElementType()), x,
      b.getDenseI64ArrayAttr(dims), b.getUnitAttr());
}

Value VjpBuilder::sumToShape(Value cotangent, RankedTensorType type) {
  ArrayRef<int64_t> from = tensorTypeOf(cotangent).getShape();
  ArrayRef<int64_t> to = type.getShape();
  int64_t lead = static_cast<int64_t>(from.size() - to.size());
  SmallVector<int64_t> dims, kept;
  for (int64_t d = 0, e = from.size(); d < e; ++d) {
    if (d < lead || (to[d - lead] == 1 && from[d] != 1))
      dims.push_back(d);
    else
      kept.push_back(from[d]);
  }
  Value sum = cotangent;
  if (!dims.empty())
    sum = b.create<ReduceSumOp>(
        loc, RankedTensorType::get(kept, tensorTypeOf(cotangent).getElementType()),
        cotangent, b.getDenseI64ArrayAttr(dims), UnitAttr());
  return reshape(sum, to);
}

Value VjpBuilder::matmul(Value a, Value bv, bool transposeA, bool transposeB,
                         Type resultElement) {
  auto aType = tensorTypeOf(a), bType = tensorTypeOf(bv);
  int64_t aRank = aType.getRank(), bRank = bType.getRank();
  int64_t m = aType.getDimSize(transposeA ? aRank - 1 : aRank - 2);
  int64_t n = bType.getDimSize(transposeB ? bRank - 2 : bRank - 1);
  auto batch = broadcastShapes(aType.getShape().drop_back(2),
                               bType.getShape().drop_back(2));
  assert(batch && "matmul batch dims must broadcast");
  SmallVector<int64_t> shape(*batch);
  shape.append({m, n});
  Type element = resultElement ? resultElement : aType.getElementType();
  return b.create<MatmulOp>(loc, RankedTensorType::get(shape, element), a, bv,
                            transposeA, transposeB);
}

namespace {

using Cotangents = FailureOr<SmallVector<Value>>;

bool isFloat(Value value) {
  return isa<FloatType>(tensorTypeOf(value).getElementType());
}

//===----------------------------------------------------------------------===//
// Unary elementwise ops
//===----------------------------------------------------------------------===//

Cotangents vjp(NegOp op, VjpBuilder &v, Value g) {
  return SmallVector<Value>{v.neg(g)};
}

Cotangents vjp(AbsOp op, VjpBuilder &v, Value g) {
  // sign(x) * g with sign(0) = 0, as torch.abs' backward.
  Value x = op.getX();
  Value zero = v.scalar(tensorTypeOf(x).getElementType(), 0.0);
  Value negative = v.select(v.compare(CompareDirection::lt, x, zero),
                            v.neg(g), zero);
  return SmallVector<Value>{
      v.select(v.compare(CompareDirection::gt, x, zero), g, negative)};
}

Cotangents vjp(ExpOp op, VjpBuilder &v, Value g) {
  return SmallVector<Value>{v.mul(g, op.getResult())};
}

Cotangents vjp(LogOp op, VjpBuilder &v, Value g) {
  return SmallVector<Value>{v.div(g, op.getX())};
}

Cotangents vjp(SqrtOp op, VjpBuilder &v, Value g) {
  // g / (2 sqrt(x)).
  Type t = tensorTypeOf(g).getElementType();
  return SmallVector<Value>{
      v.div(g, v.mul(op.getResult(), v.scalar(t, 2.0)))};
}

Cotangents vjp(RsqrtOp op, VjpBuilder &v, Value g) {
  // -0.5 g y^3 with y = x^-1/2, as PyTorch's rsqrt backward.
  Value y = op.getResult();
  Type t = tensorTypeOf(g).getElementType();
  return SmallVector<Value>{
      v.mul(v.mul(g, v.scalar(t, -0.5)), v.mul(v.mul(y, y), y))};
}

Cotangents vjp(CosOp op, VjpBuilder &v, Value g) {
  OpBuilder &b = v.builder();
  Value x = op.getOperand();
  Value sin = b.create<SinOp>(v.location(), x.getType(), x);
  return SmallVector<Value>{v.neg(v.mul(g, sin))};
}

Cotangents vjp(SinOp op, VjpBuilder &v, Value g) {
  OpBuilder &b = v.builder();
  Value x = op.getOperand();
  Value cos = b.create<CosOp>(v.location(), x.getType(), x);
  return SmallVector<Value>{v.mul(g, cos)};
}

Cotangents vjp(TanhOp op, VjpBuilder &v, Value g) {
  Value y = op.getResult();
  Type t = tensorTypeOf(g).getElementType();
  return SmallVector<Value>{v.mul(g, v.sub(v.scalar(t, 1.0), v.mul(y, y)))};
}

Cotangents vjp(ErfOp op, VjpBuilder &v, Value g) {
  // (2 / sqrt(pi)) * exp(-x^2) * g, in torch's order.
  Value x = op.getX();
  Type t = tensorTypeOf(g).getElementType();
  OpBuilder &b = v.builder();
  Value e = b.create<ExpOp>(v.location(), x.getType(), v.neg(v.mul(x, x)));
  return SmallVector<Value>{
      v.mul(v.mul(v.scalar(t, 1.1283791670955126), e), g)};
}

Cotangents vjp(SigmoidOp op, VjpBuilder &v, Value g) {
  Value y = op.getResult();
  Type t = tensorTypeOf(g).getElementType();
  return SmallVector<Value>{
      v.mul(v.mul(g, y), v.sub(v.scalar(t, 1.0), y))};
}

Cotangents vjp(ReluOp op, VjpBuilder &v, Value g) {
  // Zero where the output is <= 0 (relu'(0) = 0), else g: PyTorch's
  // threshold_backward, which passes g at NaN (NaN <= 0 is false).
  Value y = op.getResult();
  Value zero = v.scalar(tensorTypeOf(y).getElementType(), 0.0);
  return SmallVector<Value>{
      v.select(v.compare(CompareDirection::le, y, zero), zero, g)};
}

Cotangents vjp(PowOp op, VjpBuilder &v, Value g) {
  // e * x^(e-1) * g; e = 0 has a zero derivative everywhere (torch agrees).
  double e = op.getExponent().convertToDouble();
  auto type = tensorTypeOf(op.getX());
  if (e == 0.0)
    return SmallVector<Value>{v.zeros(type)};
  Value scaled = v.mul(g, v.scalar(type.getElementType(), e));
  if (e == 1.0)
    return SmallVector<Value>{scaled};
  OpBuilder &b = v.builder();
  Value power = b.create<PowOp>(v.location(), type, op.getX(),
                                b.getF64FloatAttr(e - 1.0));
  return SmallVector<Value>{v.mul(scaled, power)};
}

Cotangents vjp(ConvertOp op, VjpBuilder &v, Value g) {
  // Only float -> float conversions carry a gradient.
  if (!isFloat(op.getX()) || !isFloat(op.getResult()))
    return SmallVector<Value>{Value()};
  return SmallVector<Value>{
      v.convert(g, tensorTypeOf(op.getX()).getElementType())};
}

Cotangents vjp(StraightThroughOp op, VjpBuilder &, Value g) {
  // The value is what the forward sees; the gradient goes to the source as
  // through the identity (both have the result's type).
  (void)op;
  return SmallVector<Value>{Value(), g};
}

//===----------------------------------------------------------------------===//
// Binary elementwise ops and select (broadcasting)
//===----------------------------------------------------------------------===//

SmallVector<Value> reduced(VjpBuilder &v, Operation *op, Value dl, Value dr) {
  return {dl ? v.sumToShape(dl, tensorTypeOf(op->getOperand(0))) : Value(),
          dr ? v.sumToShape(dr, tensorTypeOf(op->getOperand(1))) : Value()};
}

Cotangents vjp(AddOp op, VjpBuilder &v, Value g) {
  return reduced(v, op, g, g);
}

Cotangents vjp(SubOp op, VjpBuilder &v, Value g) {
  return reduced(v, op, g, v.neg(g));
}

Cotangents vjp(MulOp op, VjpBuilder &v, Value g) {
  return reduced(v, op, v.mul(g, op.getRhs()), v.mul(g, op.getLhs()));
}

Cotangents vjp(DivOp op, VjpBuilder &v, Value g) {
  // d/drhs (lhs / rhs) = -(lhs / rhs) / rhs, in PyTorch's order: rhs^2
  // would underflow (a NaN 0 / 0 for lhs = 0, rhs ~ 1e-30) or overflow.
  Value rhs = op.getRhs();
  Value dr = v.neg(v.mul(g, v.div(op.getResult(), rhs)));
  return reduced(v, op, v.div(g, rhs), dr);
}

Cotangents vjp(Atan2Op op, VjpBuilder &v, Value g) {
  // torch's atan2_backward, operation by operation: r = 1 / (y^2 + x^2),
  // d/dy = g * x * r, d/dx = g * -y * r (NaN at the origin, as torch).
  Value y = op.getLhs(), x = op.getRhs();
  Type t = tensorTypeOf(g).getElementType();
  Value r = v.div(v.scalar(t, 1.0), v.add(v.mul(y, y), v.mul(x, x)));
  return reduced(v, op, v.mul(v.mul(g, x), r), v.mul(v.mul(g, v.neg(y)), r));
}

Cotangents vjp(FmodOp op, VjpBuilder &v, Value g) {
  // torch's fmod backward: g for lhs, -g * trunc(lhs / rhs) for rhs, the
  // quotient rounded first (div(rounding_mode="trunc")). trunc(q) is
  // q - fmod(q, 1), exact; q itself where that is NaN (q infinite or NaN),
  // and q * 0 where it is zero, for trunc's sign of zero (trunc(-0.5) = -0).
  Value q = v.div(op.getLhs(), op.getRhs());
  Type t = tensorTypeOf(g).getElementType();
  Value zero = v.scalar(t, 0.0);
  Value frac =
      v.builder().create<FmodOp>(v.location(), q.getType(), q, v.scalar(t, 1.0));
  Value whole = v.select(v.compare(CompareDirection::eq, frac, frac),
                         v.sub(q, frac), q);
  Value trunc = v.select(v.compare(CompareDirection::eq, whole, zero),
                         v.mul(q, zero), whole);
  return reduced(v, op, g, v.mul(v.neg(g), trunc));
}

/// maximum / minimum: the winner gets g, a tie splits it evenly (PyTorch).
template <typename OpT>
Cotangents minMaxVjp(OpT op, VjpBuilder &v, Value g, CompareDirection wins) {
  Value lhs = op.getLhs(), rhs = op.getRhs();
  Type t = tensorTypeOf(g).getElementType();
  Value zero = v.scalar(t, 0.0);
  Value half = v.mul(g, v.scalar(t, 0.5));
  Value tie = v.select(v.compare(CompareDirection::eq, lhs, rhs), half, zero);
  Value dl = v.select(v.compare(wins, lhs, rhs), g, tie);
  Value dr = v.select(v.compare(wins, rhs, lhs), g, tie);
  return reduced(v, op, dl, dr);
}

Cotangents vjp(MaximumOp op, VjpBuilder &v, Value g) {
  return minMaxVjp(op, v, g, CompareDirection::gt);
}

Cotangents vjp(MinimumOp op, VjpBuilder &v, Value g) {
  return minMaxVjp(op, v, g, CompareDirection::lt);
}

Cotangents vjp(SelectOp op, VjpBuilder &v, Value g) {
  Value zero = v.scalar(tensorTypeOf(g).getElementType(), 0.0);
  Value c = op.getCondition();
  return SmallVector<Value>{
      Value(),
      v.sumToShape(v.select(c, g, zero), tensorTypeOf(op.getOnTrue())),
      v.sumToShape(v.select(c, zero, g), tensorTypeOf(op.getOnFalse()))};
}

//===----------------------------------------------------------------------===//
// Shape ops
//===----------------------------------------------------------------------===//

Cotangents vjp(ReshapeOp op, VjpBuilder &v, Value g) {
  return SmallVector<Value>{v.reshape(g, tensorTypeOf(op.getX()).getShape())};
}

Cotangents vjp(TransposeOp op, VjpBuilder &v, Value g) {
  ArrayRef<int64_t> perm = op.getPermutation();
  SmallVector<int64_t> inverse(perm.size());
  for (auto [i, p] : llvm::enumerate(perm))
    inverse[p] = i;
  return SmallVector<Value>{v.builder().create<TransposeOp>(
      v.location(), op.getX().getType(), g, inverse)};
}

Cotangents vjp(BroadcastToOp op, VjpBuilder &v, Value g) {
  return SmallVector<Value>{v.sumToShape(g, tensorTypeOf(op.getX()))};
}

/// Pads `g` with zeros by `low`/`high` per dimension (no-op when all zero).
Value padZeros(VjpBuilder &v, Value g, ArrayRef<int64_t> low,
               ArrayRef<int64_t> high) {
  if (llvm::all_of(low, [](int64_t x) { return x == 0; }) &&
      llvm::all_of(high, [](int64_t x) { return x == 0; }))
    return g;
  auto type = tensorTypeOf(g);
  SmallVector<int64_t> shape(type.getShape());
  for (size_t d = 0; d < shape.size(); ++d)
    shape[d] += low[d] + high[d];
  OpBuilder &b = v.builder();
  return b.create<PadOp>(v.location(),
                         RankedTensorType::get(shape, type.getElementType()),
                         g, b.getDenseI64ArrayAttr(low),
                         b.getDenseI64ArrayAttr(high), b.getF64FloatAttr(0.0));
}

Cotangents vjp(SliceOp op, VjpBuilder &v, Value g) {
  // Scatter g back into zeros. A strided dimension is spread first: insert
  // a unit dim after it, pad that to the step, merge, so element k lands at
  // k * step; trim what runs past the input, then pad by the start. A
  // dimension the slice keeps one element of needs no spreading, whatever
  // its step (x[::k] with k past the size would pad to k elements).
  OpBuilder &b = v.builder();
  Location loc = v.location();
  ArrayRef<int64_t> sizes = tensorTypeOf(op.getX()).getShape();
  ArrayRef<int64_t> start = op.getStart();
  SmallVector<int64_t> steps = op.getStepOrOnes();
  int64_t rank = sizes.size();
  for (int64_t d = 0; d < rank; ++d) {
    if (steps[d] == 1 || tensorTypeOf(g).getDimSize(d) == 1)
      continue;
    SmallVector<int64_t> shape(tensorTypeOf(g).getShape());
    SmallVector<int64_t> split(shape);
    split.insert(split.begin() + d + 1, 1);
    g = v.reshape(g, split);
    SmallVector<int64_t> low(rank + 1, 0), high(rank + 1, 0);
    high[d + 1] = steps[d] - 1;
    g = padZeros(v, g, low, high);
    shape[d] *= steps[d];
    g = v.reshape(g, shape);
    int64_t room = sizes[d] - start[d];
    if (shape[d] > room) {
      SmallVector<int64_t> from(rank, 0), to(shape);
      to[d] = room;
      shape[d] = room;
      g = b.create<SliceOp>(
          loc, RankedTensorType::get(shape, tensorTypeOf(g).getElementType()),
          g, b.getDenseI64ArrayAttr(from), b.getDenseI64ArrayAttr(to),
          DenseI64ArrayAttr());
    }
  }
  ArrayRef<int64_t> have = tensorTypeOf(g).getShape();
  SmallVector<int64_t> high(rank);
  for (int64_t d = 0; d < rank; ++d)
    high[d] = sizes[d] - start[d] - have[d];
  return SmallVector<Value>{padZeros(v, g, start, high)};
}

Cotangents vjp(ConcatOp op, VjpBuilder &v, Value g) {
  OpBuilder &b = v.builder();
  auto type = tensorTypeOf(g);
  int64_t rank = type.getRank();
  int64_t dim = *normalizeDim(op.getDim(), rank);
  SmallVector<Value> result;
  int64_t offset = 0;
  for (Value input : op.getInputs()) {
    auto inputType = tensorTypeOf(input);
    SmallVector<int64_t> from(rank, 0), to(type.getShape());
    from[dim] = offset;
    offset += inputType.getDimSize(dim);
    to[dim] = offset;
    result.push_back(b.create<SliceOp>(
        v.location(), inputType, g, b.getDenseI64ArrayAttr(from),
        b.getDenseI64ArrayAttr(to), DenseI64ArrayAttr()));
  }
  return result;
}

Cotangents vjp(PadOp op, VjpBuilder &v, Value g) {
  OpBuilder &b = v.builder();
  auto inputType = tensorTypeOf(op.getX());
  SmallVector<int64_t> to(op.getLow());
  for (auto [d, size] : llvm::enumerate(inputType.getShape()))
    to[d] += size;
  return SmallVector<Value>{b.create<SliceOp>(
      v.location(), inputType, g, op.getLowAttr(), b.getDenseI64ArrayAttr(to),
      DenseI64ArrayAttr())};
}

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

/// The reduction's result shape with the reduced dims kept as size 1.
SmallVector<int64_t> keptShape(RankedTensorType input, ArrayRef<int64_t> dims) {
  SmallVector<int64_t> shape(input.getShape());
  for (int64_t d : dims)
    shape[d] = 1;
  return shape;
}

/// g reshaped to the keepdim shape and broadcast back over the input.
Value spread(VjpBuilder &v, Value g, RankedTensorType input,
             ArrayRef<int64_t> dims) {
  Value kept = v.reshape(g, keptShape(input, dims));
  return v.builder().create<BroadcastToOp>(
      v.location(),
      RankedTensorType::get(input.getShape(), tensorTypeOf(g).getElementType()),
      kept);
}

Cotangents vjp(ReduceSumOp op, VjpBuilder &v, Value g) {
  auto input = tensorTypeOf(op.getX());
  return SmallVector<Value>{spread(v, g, input, op.getNormalizedDims())};
}

Cotangents vjp(ReduceMeanOp op, VjpBuilder &v, Value g) {
  auto input = tensorTypeOf(op.getX());
  SmallVector<int64_t> dims = op.getNormalizedDims();
  int64_t count = 1;
  for (int64_t d : dims)
    count *= input.getDimSize(d);
  Value scaled =
      v.mul(g, v.scalar(input.getElementType(), 1.0 / double(count)));
  return SmallVector<Value>{spread(v, scaled, input, dims)};
}

Cotangents vjp(ReduceMaxOp op, VjpBuilder &v, Value g) {
  // g shared evenly by the elements equal to the maximum (torch.amax).
  auto input = tensorTypeOf(op.getX());
  if (!isFloat(op.getX()))
    return SmallVector<Value>{Value()};
  SmallVector<int64_t> dims = op.getNormalizedDims();
  SmallVector<int64_t> kept = keptShape(input, dims);
  Type t = input.getElementType();
  OpBuilder &b = v.builder();
  Value isMax =
      v.compare(CompareDirection::eq, op.getX(), v.reshape(op.getResult(), kept));
  Value ones = v.select(isMax, v.scalar(t, 1.0), v.scalar(t, 0.0));
  Value count = b.create<ReduceSumOp>(
      v.location(), RankedTensorType::get(kept, t), ones,
      b.getDenseI64ArrayAttr(dims), b.getUnitAttr());
  Value share = v.div(v.reshape(g, kept), count);
  return SmallVector<Value>{v.select(isMax, share, v.scalar(t, 0.0))};
}

//===----------------------------------------------------------------------===//
// sort
//===----------------------------------------------------------------------===//

Cotangents vjp(SortOp op, VjpBuilder &v, ArrayRef<Value> cots) {
  // values[r, j] = x[r, indices[r, j]]: each value's cotangent goes back to
  // the position it came from (torch's sort backward scatters by the
  // indices). Each row's indices are a permutation, so sorting them gives
  // its inverse, and dx[r, i] = g[r, inverse[r, i]] is a gather: an
  // embedding of g's elements as one-wide rows, the row offset r * n added
  // to the inverse. O(n log n) a row, as the sort; no scatter.
  Value g = cots.empty() ? Value() : cots[0];
  if (!g || !isFloat(op.getX()))
    return SmallVector<Value>{Value()};
  auto type = tensorTypeOf(op.getX());
  int64_t n = type.getShape().back();
  int64_t rows = n == 0 ? 0 : type.getNumElements() / n;
  OpBuilder &b = v.builder();
  Location loc = v.location();
  auto indexType = tensorTypeOf(op.getIndices());
  Value inverse = b.create<SortOp>(loc, op.getIndices(), false).getIndices();
  auto grid = RankedTensorType::get({rows, n}, indexType.getElementType());
  Value row = b.create<IotaOp>(loc, grid, /*dim=*/0);
  Value length = b.create<ConstantOp>(
      loc, DenseElementsAttr::get(
               RankedTensorType::get({}, indexType.getElementType()),
               b.getI64IntegerAttr(n).getValue()));
  Value rowStart = v.mul(row, length);
  Value ids = v.add(v.reshape(inverse, {rows, n}), rowStart);
  Value table = v.reshape(g, {rows * n, 1});
  Value gathered = b.create<EmbeddingOp>(
      loc, RankedTensorType::get({rows, n, 1}, type.getElementType()), table,
      ids);
  return SmallVector<Value>{v.reshape(gathered, type.getShape())};
}

//===----------------------------------------------------------------------===//
// matmul
//===----------------------------------------------------------------------===//

Cotangents vjp(MatmulOp op, VjpBuilder &v, Value g) {
  // With A' = op(A), B' = op(B): dA' = G B'^T and dB' = A'^T G; undoing
  // the transposes turns each into one matmul with transpose flags.
  Value a = op.getA(), bv = op.getB();
  bool ta = op.getTransposeA(), tb = op.getTransposeB();
  auto aType = tensorTypeOf(a), bType = tensorTypeOf(bv);
  // 16-bit operands may have an f32 result: the backward GEMMs read g in
  // the operands' type.
  g = v.convert(g, aType.getElementType());

  Value da = ta ? v.matmul(bv, g, tb, true) : v.matmul(g, bv, false, !tb);

  Value db;
  auto gType = tensorTypeOf(g);
  if (bType.getRank() == 2 && aType.getRank() > 2 && !ta) {
    // A rank-2 weight against batched activations: flatten the batch into
    // the rows, so dB is one GEMM instead of a batched one and a sum.
    int64_t rows = aType.getNumElements() / aType.getShape().back();
    Value a2 = v.reshape(a, {rows, aType.getShape().back()});
    Value g2 = v.reshape(g, {rows, gType.getShape().back()});
    db = tb ? v.matmul(g2, a2, true, false) : v.matmul(a2, g2, true, false);
  } else {
    db = tb ? v.matmul(g, a, true, ta) : v.matmul(a, g, !ta, false);
  }
  return SmallVector<Value>{v.sumToShape(da, aType), v.sumToShape(db, bType)};
}

//===----------------------------------------------------------------------===//
// dropout
//===----------------------------------------------------------------------===//

Cotangents vjp(DropoutOp op, VjpBuilder &v, Value g) {
  // Dropout is linear in x with a mask that depends only on (seed, offset):
  // its VJP is the same dropout of g, which regenerates the mask.
  return SmallVector<Value>{
      v.builder().create<DropoutOp>(v.location(), g.getType(), g, op.getSeed(),
                                    op.getOffset(), op.getPAttr()),
      Value(), Value()};
}

/// The VJP of a single-result op: its vjp() above, of the one cotangent.
struct CoreRule {
  template <typename OpT>
  Cotangents operator()(OpT op, VjpBuilder &v, ArrayRef<Value> cots) const {
    return vjp(op, v, cots[0]);
  }
};

/// The VJP of sort, from both results' cotangents (the indices' is none).
struct SortRule {
  Cotangents operator()(SortOp op, VjpBuilder &v, ArrayRef<Value> cots) const {
    return vjp(op, v, cots);
  }
};

} // namespace

void mlir::tfc::detail::attachCoreVjps(MLIRContext *context) {
  attachVjpModels<CoreRule, NegOp, AbsOp, ExpOp, LogOp, SqrtOp, RsqrtOp, CosOp,
                  SinOp, TanhOp, ErfOp, SigmoidOp, ReluOp, PowOp, ConvertOp,
                  AddOp, SubOp, MulOp, DivOp, Atan2Op, FmodOp, MaximumOp,
                  MinimumOp, SelectOp, ReshapeOp, TransposeOp, BroadcastToOp,
                  SliceOp, ConcatOp, PadOp, ReduceSumOp, ReduceMeanOp,
                  ReduceMaxOp, MatmulOp, DropoutOp, StraightThroughOp>(context);
  attachVjpModels<SortRule, SortOp>(context);
}

void mlir::tfc::attachDifferentiableInterfaces(MLIRContext *context) {
  detail::attachCoreVjps(context);
  detail::attachNNVjps(context);
  detail::attachGradVjps(context);
}
