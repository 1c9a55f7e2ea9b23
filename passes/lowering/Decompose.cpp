//===- Decompose.cpp - --tfc-decompose ------------------------------------===//
//
// Rewrites composite ops into ops that each map onto one kernel kind, so
// that region formation (and later fusion) only ever sees ops with a kernel
// role. Each rewrite is exact: it computes what the composite's
// description (and the PyTorch function it names) computes.
// tfc.stop_gradient and tfc.straight_through, which only differentiation
// reads, become their operand (value).
//
//===----------------------------------------------------------------------===//

#include "passes/lowering/Passes.h"

#include "dialects/tfc/TfcOps.h"
#include "dialects/tfc/TfcShapeUtils.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Rewrite/FrozenRewritePatternSet.h"
#include "mlir/Rewrite/PatternApplicator.h"
#include "llvm/ADT/STLExtras.h"

#include <cmath>
#include <limits>
#include <type_traits>

namespace tfc {
#define GEN_PASS_DEF_TFCDECOMPOSEPASS
#include "passes/lowering/Passes.h.inc"
} // namespace tfc

using namespace mlir;
using namespace mlir::tfc;

namespace {

RankedTensorType withShape(RankedTensorType type, ArrayRef<int64_t> shape) {
  return RankedTensorType::get(shape, type.getElementType());
}

RankedTensorType withElementType(RankedTensorType type, Type elementType) {
  return RankedTensorType::get(type.getShape(), elementType);
}


//===----------------------------------------------------------------------===//
// attention
//===----------------------------------------------------------------------===//

/// softmax(q k^T * scale + masks) [dropout] v, as
/// torch.nn.functional.scaled_dot_product_attention computes it: scores and
/// probabilities stay in accumulationType (f32 for 16-bit q), the masks are
/// those of AttentionOp::buildScores, and the probabilities are rounded to
/// q's type once, for the second GEMM.
void decomposeAttention(AttentionOp op, PatternRewriter &builder) {
  builder.setInsertionPoint(op);
  Location loc = op.getLoc();
  Type elementType = op.getQ().getType().getElementType();
  Value scores = op.buildScores(builder);
  auto scoresType = cast<RankedTensorType>(scores.getType());
  Value probs = builder.create<SoftmaxOp>(loc, scoresType, scores,
                                          builder.getI64IntegerAttr(-1));
  if (FloatAttr p = op.getDropoutAttr(); p && p.getValueAsDouble() != 0.0)
    probs = builder.create<DropoutOp>(loc, scoresType, probs, op.getSeed(),
                                      op.getOffset(), p);
  if (scoresType.getElementType() != elementType)
    probs = builder.create<ConvertOp>(
        loc, withElementType(scoresType, elementType), probs);

  Value result = builder.create<MatmulOp>(loc, op.getType(), probs, op.getV(),
                                          /*transpose_a=*/false,
                                          /*transpose_b=*/false);
  builder.replaceOp(op, result);
}

//===----------------------------------------------------------------------===//
// softmax / log_softmax over a non-last dimension
//===----------------------------------------------------------------------===//

/// Runs `OpTy` over `dim` of `operands` as a row reduction over the last
/// dimension: transposes `dim` with the last one, applies the op there and
/// transposes back (the permutation is its own inverse).
template <typename OpTy>
void decomposeOverLastDim(OpTy op, int64_t dimAttr, ValueRange operands,
                          PatternRewriter &builder) {
  builder.setInsertionPoint(op);
  Location loc = op.getLoc();
  auto type = cast<RankedTensorType>(op.getType());
  int64_t rank = type.getRank();
  int64_t dim = *normalizeDim(dimAttr, rank);
  SmallVector<int64_t> permutation =
      llvm::to_vector(llvm::seq<int64_t>(0, rank));
  std::swap(permutation[dim], permutation[rank - 1]);
  SmallVector<int64_t> shape(type.getShape());
  std::swap(shape[dim], shape[rank - 1]);
  auto transposedType = withShape(type, shape);

  SmallVector<Value> transposed;
  for (Value operand : operands)
    transposed.push_back(builder.create<TransposeOp>(loc, transposedType,
                                                     operand, permutation));
  IntegerAttr last = builder.getI64IntegerAttr(-1);
  Value reduced;
  if constexpr (std::is_same_v<OpTy, SoftmaxOp> ||
                std::is_same_v<OpTy, LogSoftmaxOp>)
    reduced = builder.create<OpTy>(loc, transposedType, transposed[0], last);
  else
    reduced = builder.create<OpTy>(loc, transposedType, transposed[0],
                                   transposed[1], last);
  Value result = builder.create<TransposeOp>(loc, type, reduced, permutation);
  builder.replaceOp(op, result);
}

/// softmax / log_softmax over a non-last dimension.
template <typename OpTy>
void decomposeSoftmax(OpTy op, PatternRewriter &builder) {
  decomposeOverLastDim(op, op.getDim(), ValueRange{op.getX()}, builder);
}

/// softmax_grad / log_softmax_grad over a non-last dimension: the same
/// transposes, applied to both operands.
template <typename OpTy>
void decomposeSoftmaxGrad(OpTy op, PatternRewriter &builder) {
  decomposeOverLastDim(op, op.getDim(), ValueRange{op.getDy(), op.getY()},
                       builder);
}

//===----------------------------------------------------------------------===//
// layer_norm_grad / rms_norm_grad
//===----------------------------------------------------------------------===//

RankedTensorType reducedType(RankedTensorType type, ArrayRef<int64_t> dims,
                             bool keepdim);

/// Sums `x` over its leading `count` dims (a column reduction), or returns it
/// unchanged when there are none, then converts to `elementType`.
Value sumLeadingDims(OpBuilder &builder, Location loc, Value x, int64_t count,
                     Type elementType) {
  auto type = cast<RankedTensorType>(x.getType());
  if (count > 0) {
    SmallVector<int64_t> dims = llvm::to_vector(llvm::seq<int64_t>(0, count));
    x = builder.create<ReduceSumOp>(loc, reducedType(type, dims, false), x,
                                    dims, /*keepdim=*/false);
    type = cast<RankedTensorType>(x.getType());
  }
  if (type.getElementType() != elementType)
    x = builder.create<ConvertOp>(loc, withElementType(type, elementType), x);
  return x;
}

/// dx comes from the dx-only row kernel; dweight = sum(dy * xhat) and
/// dbias = sum(dy) over the non-normalized (leading) dims are column
/// reductions, computed from dy and x widened to the accumulation type so
/// that neither the product nor the partial sums are rounded to 16 bits.
/// xhat is (x - mean) * rstd for layer_norm and x * rstd for rms_norm, with
/// the statistics the forward stored.
template <typename OpTy, typename InputOpTy>
void decomposeNormGrad(OpTy op, PatternRewriter &builder) {
  builder.setInsertionPoint(op);
  Location loc = op.getLoc();
  auto xType = cast<RankedTensorType>(op.getX().getType());
  constexpr bool isLayerNorm = std::is_same_v<OpTy, LayerNormGradOp>;
  Value mean;
  if constexpr (isLayerNorm)
    mean = op.getMean();
  SmallVector<Value> operands = {op.getDy(), op.getX()};
  if (mean)
    operands.push_back(mean);
  operands.push_back(op.getRstd());
  if (op.getWeight())
    operands.push_back(op.getWeight());
  Value dx = builder.create<InputOpTy>(
      loc, TypeRange{xType}, operands,
      builder.getNamedAttr("normalized_rank", op.getNormalizedRankAttr()));
  builder.replaceAllUsesWith(op.getDx(), dx);

  if (Value weight = op.getWeight()) {
    Type acc = accumulationType(xType.getElementType());
    auto accType = withElementType(xType, acc);
    Value dy = op.getDy(), x = op.getX();
    if (acc != xType.getElementType()) {
      dy = builder.create<ConvertOp>(loc, accType, dy);
      x = builder.create<ConvertOp>(loc, accType, x);
    }
    Value xhat = x;
    if (mean)
      xhat = builder.create<SubOp>(loc, accType, xhat, mean);
    xhat = builder.create<MulOp>(loc, accType, xhat, op.getRstd());
    Value prod = builder.create<MulOp>(loc, accType, dy, xhat);
    int64_t leading = xType.getRank() - op.getNormalizedRank();
    Type weightElement =
        cast<RankedTensorType>(weight.getType()).getElementType();
    ValueRange paramGrads = op.getParamGrads();
    builder.replaceAllUsesWith(
        paramGrads[0],
        sumLeadingDims(builder, loc, prod, leading, weightElement));
    if (paramGrads.size() > 1)
      builder.replaceAllUsesWith(
          paramGrads[1],
          sumLeadingDims(builder, loc, dy, leading, weightElement));
  }
  builder.eraseOp(op);
}

//===----------------------------------------------------------------------===//
// reductions over the last dimension and leading ones
//===----------------------------------------------------------------------===//

/// The type of reducing `type` over `dims` (sorted, in range).
RankedTensorType reducedType(RankedTensorType type, ArrayRef<int64_t> dims,
                             bool keepdim) {
  SmallVector<int64_t> shape;
  for (auto [d, size] : llvm::enumerate(type.getShape())) {
    if (!llvm::is_contained(dims, static_cast<int64_t>(d)))
      shape.push_back(size);
    else if (keepdim)
      shape.push_back(1);
  }
  return withShape(type, shape);
}

/// Reduces the maximal trailing suffix of the dims first (a row reduction)
/// and the remaining leading dims second: they all lie before the suffix, so
/// their indices survive the first reduction, and the new last dimension is
/// not among them (a column reduction). Sums, means (over equal-size
/// groups) and maxima compose exactly; 16-bit sums and means go through f32
/// so that the intermediate result is not rounded to 16 bits.
template <typename OpTy>
void decomposeReduction(OpTy op, PatternRewriter &builder) {
  builder.setInsertionPoint(op);
  Location loc = op.getLoc();
  auto type = cast<RankedTensorType>(op.getX().getType());
  int64_t rank = type.getRank();
  SmallVector<int64_t> dims = op.getNormalizedDims();
  size_t suffix = 0;
  while (suffix < dims.size() && dims[dims.size() - 1 - suffix] ==
                                     rank - 1 - static_cast<int64_t>(suffix))
    ++suffix;
  SmallVector<int64_t> rowDims(dims.end() - suffix, dims.end());
  SmallVector<int64_t> columnDims(dims.begin(), dims.end() - suffix);
  bool keepdim = op.getKeepdim();

  Value x = op.getX();
  Type elementType = type.getElementType();
  bool widen = !std::is_same_v<OpTy, ReduceMaxOp> &&
               (elementType.isF16() || elementType.isBF16());
  if (widen) {
    type = withElementType(type, builder.getF32Type());
    x = builder.create<ConvertOp>(loc, type, x);
  }
  RankedTensorType rowType = reducedType(type, rowDims, keepdim);
  Value partial = builder.create<OpTy>(loc, rowType, x, rowDims, keepdim);
  RankedTensorType columnType = reducedType(rowType, columnDims, keepdim);
  Value result =
      builder.create<OpTy>(loc, columnType, partial, columnDims, keepdim);
  if (widen)
    result = builder.create<ConvertOp>(loc, op.getType(), result);
  builder.replaceOp(op, result);
}

//===----------------------------------------------------------------------===//
// matmul batch broadcasting
//===----------------------------------------------------------------------===//

/// Whether a strided-batched GEMM can address operand batch dims `batch`
/// inside the result's batch dims `full` with one stride: either one matrix
/// for the whole batch (stride 0) or one per result batch (stride = matrix
/// size).
bool isStridable(ArrayRef<int64_t> batch, ArrayRef<int64_t> full) {
  if (ShapedType::getNumElements(batch) == 1)
    return true;
  SmallVector<int64_t> padded(full.size() - batch.size(), 1);
  padded.append(batch.begin(), batch.end());
  return ArrayRef<int64_t>(padded) == full;
}

/// Broadcasts each operand whose batch dims are not stridable to the full
/// batch shape; returns whether anything changed.
bool makeBatchStridable(MatmulOp op, PatternRewriter &builder) {
  auto resultType = cast<RankedTensorType>(op.getType());
  ArrayRef<int64_t> full = resultType.getShape().drop_back(2);
  builder.setInsertionPoint(op);
  bool changed = false;
  for (OpOperand *operand : {&op.getAMutable(), &op.getBMutable()}) {
    auto type = cast<RankedTensorType>(operand->get().getType());
    ArrayRef<int64_t> batch = type.getShape().drop_back(2);
    if (isStridable(batch, full))
      continue;
    SmallVector<int64_t> shape(full);
    shape.append(type.getShape().take_back(2).begin(),
                 type.getShape().take_back(2).end());
    Value wide = builder.create<BroadcastToOp>(
        op.getLoc(), withShape(type, shape), operand->get());
    builder.modifyOpInPlace(op, [&] { operand->set(wide); });
    changed = true;
  }
  return changed;
}

/// One pattern per composite op (and for matmul's batch broadcasting): it
/// applies the decomposition of that op type above, when the op is
/// composite (softmax over the last dim, say, is a row reduction already).
template <typename OpTy> struct Decomposition : public OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;
  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    if constexpr (std::is_same_v<OpTy, MatmulOp>) {
      return success(makeBatchStridable(op, rewriter));
    } else {
      auto role = cast<KernelRoleOpInterface>(op.getOperation());
      if (role.getKernelRole() != KernelRole::Composite)
        return failure();
      if constexpr (std::is_same_v<OpTy, AttentionOp>)
        decomposeAttention(op, rewriter);
      else if constexpr (std::is_same_v<OpTy, SoftmaxOp> ||
                         std::is_same_v<OpTy, LogSoftmaxOp>)
        decomposeSoftmax(op, rewriter);
      else if constexpr (std::is_same_v<OpTy, SoftmaxGradOp> ||
                         std::is_same_v<OpTy, LogSoftmaxGradOp>)
        decomposeSoftmaxGrad(op, rewriter);
      else if constexpr (std::is_same_v<OpTy, LayerNormGradOp>)
        decomposeNormGrad<LayerNormGradOp, LayerNormGradInputOp>(op, rewriter);
      else if constexpr (std::is_same_v<OpTy, RmsNormGradOp>)
        decomposeNormGrad<RmsNormGradOp, RmsNormGradInputOp>(op, rewriter);
      else
        decomposeReduction(op, rewriter);
      return success();
    }
  }
};

/// tfc.stop_gradient and tfc.straight_through only mark gradients: once
/// they are built (autodiff runs before this pass in every pipeline) each is
/// its first operand (the operand, the value).
template <typename MarkOp>
struct DropGradientMark : public OpRewritePattern<MarkOp> {
  using OpRewritePattern<MarkOp>::OpRewritePattern;
  LogicalResult matchAndRewrite(MarkOp op,
                                PatternRewriter &rewriter) const override {
    rewriter.replaceOp(op, op->getOperand(0));
    return success();
  }
};

struct TfcDecomposePass
    : public ::tfc::impl::TfcDecomposePassBase<TfcDecomposePass> {
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    RewritePatternSet patterns(&getContext());
    populateDecompositionPatterns(patterns);
    FrozenRewritePatternSet frozen(std::move(patterns));
    PatternApplicator applicator(frozen);
    applicator.applyDefaultCostModel();
    // Each op of the function once, in program order (collected first: a
    // rewrite replaces the op it visits): the decompositions produce only
    // ops with a kernel role and matmuls with stridable batches, so nothing
    // they create needs a second visit, and no folding happens here (the
    // pipeline canonicalizes next).
    SmallVector<Operation *> worklist;
    func.walk([&](Operation *op) { worklist.push_back(op); });
    PatternRewriter rewriter(&getContext());
    for (Operation *op : worklist) {
      rewriter.setInsertionPoint(op);
      (void)applicator.matchAndRewrite(op, rewriter);
    }
    // What is left composite is an op this pass does not know.
    WalkResult result = func.walk([&](KernelRoleOpInterface op) {
      if (op.getKernelRole() != KernelRole::Composite)
        return WalkResult::advance();
      op->emitOpError("is a composite op that --tfc-decompose cannot "
                      "decompose");
      return WalkResult::interrupt();
    });
    if (result.wasInterrupted())
      signalPassFailure();
  }
};

} // namespace

void mlir::tfc::populateDecompositionPatterns(RewritePatternSet &patterns) {
  patterns.add<DropGradientMark<StopGradientOp>,
               DropGradientMark<StraightThroughOp>>(patterns.getContext());
  patterns.add<Decomposition<AttentionOp>, Decomposition<SoftmaxOp>,
               Decomposition<LogSoftmaxOp>, Decomposition<ReduceSumOp>,
               Decomposition<ReduceMeanOp>, Decomposition<ReduceMaxOp>,
               Decomposition<MatmulOp>, Decomposition<SoftmaxGradOp>,
               Decomposition<LogSoftmaxGradOp>, Decomposition<LayerNormGradOp>,
               Decomposition<RmsNormGradOp>>(
      patterns.getContext());
}
