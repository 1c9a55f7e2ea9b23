//===- Adafactor.cpp - adafactor for the train step -----------------------===//
//
// Adafactor (Shazeer & Stern 2018) as torch.optim.Adafactor (PyTorch >= 2.5)
// states it, built from plain tfc ops so that no new kernel is needed: the
// lowering turns the reductions and the pointwise chains into ordinary
// kernels for host and CUDA. Per parameter P (computed in f32, the
// master-weight type) with gradient G, step t (after the increment) and lr:
//
//   beta2_t = 1 - t^beta2_decay        rho_t = min(lr, 1/sqrt(t))
//   alpha_t = max(eps2, RMS(P)) * rho_t          (P before weight decay)
//   P       = P * (1 - lr * weight_decay)        (only if weight_decay != 0)
//   rank >= 2 (factored over the last two dims, leading dims are a batch):
//     R = lerp(R, mean(G^2, dim=-1, keepdim), 1 - beta2_t)      "P.row_var"
//     C = lerp(C, mean(G^2, dim=-2, keepdim), 1 - beta2_t)      "P.col_var"
//     V = (R * C) / max(mean(R, dim=-2, keepdim), eps1)
//   rank < 2:
//     V = lerp(V, G^2, 1 - beta2_t)                             "P.variance"
//   U = G * rsqrt(max(V, eps1^2))
//   P = P - alpha_t / max(1, RMS(U) / d) * U
//
// Where torch differs from the paper, we follow torch: lr caps rho_t (the
// paper uses the constant 0.01), weight decay is decoupled and scaled by lr
// (the paper has none), and eps1 clamps the row-factor mean and the variance
// estimate instead of being added to G^2 (see torch's documentation note).
// R @ C (torch's matmul) is an outer product over a dimension of size 1, so a
// broadcast multiply computes the same products; RMS(X) = sqrt(mean(X^2)) is
// torch's ||X||_2 / sqrt(numel) reassociated; lerp(a, b, w) = a + w (b - a).
//
//===----------------------------------------------------------------------===//

#include "passes/training/OptimizerRule.h"

#include "passes/training/TrainStepUtils.h"

#include "dialects/tfc/TfcOps.h"
#include "dialects/tfc/TfcVjps.h"

#include <cmath>

using namespace mlir;
using namespace mlir::tfc;

namespace tfc {
namespace {

class AdafactorRule : public OptimizerRule {
public:
  explicit AdafactorRule(const TfcBuildTrainStepPassOptions &options)
      : options(options) {}

  SmallVector<StateSpec> stateOf(RankedTensorType param) const override {
    Type f32 = Float32Type::get(param.getContext());
    ArrayRef<int64_t> shape = param.getShape();
    if (param.getRank() < 2)
      return {{"variance", RankedTensorType::get(shape, f32)}};
    SmallVector<int64_t> rows(shape), cols(shape);
    rows.back() = 1;
    cols[cols.size() - 2] = 1;
    return {{"row_var", RankedTensorType::get(rows, f32)},
            {"col_var", RankedTensorType::get(cols, f32)}};
  }

  ParamStepResult emitStep(OpBuilder &builder, Location loc,
                           const ParamStep &in) const override {
    VjpBuilder v(builder, loc);
    Type f32 = builder.getF32Type();
    auto paramType = tensorTypeOf(in.param);
    auto max = [&](Value a, Value b) -> Value {
      return builder.create<MaximumOp>(loc, a, b);
    };
    auto lerp = [&](Value from, Value to, Value weight) {
      Value delta = v.sub(to, from);
      return v.add(from, v.mul(weight, delta));
    };
    // The machine epsilon of P's type, as torch.finfo(param.dtype).eps.
    double eps1 = options.eps1;
    if (eps1 == 0.0) {
      auto element = cast<FloatType>(paramType.getElementType());
      int precision = APFloat::semanticsPrecision(element.getFloatSemantics());
      eps1 = std::ldexp(1.0, 1 - precision);
    }

    // The step-dependent scalars come from the runtime step, so a run never
    // recompiles. One statement per op: the IR's order must not depend on
    // the compiler's order of evaluating arguments.
    Value t = v.convert(in.step, f32);
    Value weight = builder.create<PowOp>(
        loc, t.getType(), t,
        builder.getF64FloatAttr(options.beta2Decay)); // 1 - beta2_t
    Value invSqrtT = builder.create<RsqrtOp>(loc, t.getType(), t);
    Value lr = v.convert(in.lr, f32); // (f64 for an f64 parameter)
    Value rho = builder.create<MinimumOp>(loc, lr, invSqrtT);

    Value param = v.convert(in.param, f32);
    Value grad = v.convert(in.grad, f32);
    Value paramRms = rms(builder, loc, param);
    Value eps2 = v.scalar(f32, options.eps2);
    Value alpha = v.mul(max(eps2, paramRms), rho);
    if (in.weightDecay != 0.0) {
      Value one = v.scalar(f32, 1.0);
      Value decay = v.mul(lr, v.scalar(f32, in.weightDecay));
      param = v.mul(param, v.sub(one, decay));
    }

    Value gradSq = v.mul(grad, grad);
    ParamStepResult result;
    Value variance;
    if (paramType.getRank() >= 2) {
      Value rowVar =
          lerp(in.states[0], mean(builder, loc, gradSq, {-1}), weight);
      Value colVar =
          lerp(in.states[1], mean(builder, loc, gradSq, {-2}), weight);
      Value rowMean = mean(builder, loc, rowVar, {-2});
      Value outer = v.mul(rowVar, colVar);
      Value eps1Value = v.scalar(f32, eps1);
      variance = v.div(outer, max(rowMean, eps1Value));
      result.states = {rowVar, colVar};
    } else {
      variance = lerp(in.states[0], gradSq, weight);
      result.states = {variance};
    }
    Value floored = max(variance, v.scalar(f32, eps1 * eps1));
    Value scale = builder.create<RsqrtOp>(loc, floored.getType(), floored);
    Value update = v.mul(grad, scale);
    Value ratio = rms(builder, loc, update);
    if (options.clipThreshold != 1.0)
      ratio = v.div(ratio, v.scalar(f32, options.clipThreshold));
    Value one = v.scalar(f32, 1.0);
    Value stepSize = v.div(alpha, max(one, ratio));
    Value next = v.sub(param, v.mul(stepSize, update));
    result.param = v.convert(next, paramType.getElementType());
    return result;
  }

private:
  /// mean(x) over `dims` with keepdim.
  static Value mean(OpBuilder &builder, Location loc, Value x,
                    ArrayRef<int64_t> dims) {
    return builder.create<ReduceMeanOp>(
        loc, x, builder.getDenseI64ArrayAttr(dims), builder.getUnitAttr());
  }

  /// sqrt(mean(x^2)) over every element, as a 0-d tensor.
  static Value rms(OpBuilder &builder, Location loc, Value x) {
    VjpBuilder v(builder, loc);
    auto type = tensorTypeOf(x);
    Value squares = v.mul(x, x);
    Value meanSq = sumAll(builder, loc, squares);
    if (type.getNumElements() != 1) {
      Value count =
          v.scalar(type.getElementType(), double(type.getNumElements()));
      meanSq = v.div(meanSq, count);
    }
    return builder.create<SqrtOp>(loc, meanSq.getType(), meanSq);
  }

  TfcBuildTrainStepPassOptions options;
};

} // namespace

std::unique_ptr<OptimizerRule>
makeAdafactorRule(const TfcBuildTrainStepPassOptions &options,
                  std::string &error) {
  if (options.optimizer != "adafactor")
    return nullptr;
  // torch.optim.Adafactor's argument checks.
  if (!(std::isfinite(options.beta2Decay) && options.beta2Decay <= 0)) {
    error = "beta2-decay must be finite and <= 0";
    return nullptr;
  }
  if (!(std::isfinite(options.eps1) && options.eps1 >= 0)) {
    error = "eps1 must be non-negative and finite (0: the dtype's epsilon)";
    return nullptr;
  }
  if (!(std::isfinite(options.eps2) && options.eps2 >= 0)) {
    error = "eps2 must be non-negative and finite";
    return nullptr;
  }
  if (!(std::isfinite(options.clipThreshold) && options.clipThreshold >= 1)) {
    error = "clip-threshold must be finite and >= 1";
    return nullptr;
  }
  return std::make_unique<AdafactorRule>(options);
}

} // namespace tfc
