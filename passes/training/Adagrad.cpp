//===- Adagrad.cpp - adagrad for the train step ---------------------------===//
//
// torch.optim.Adagrad (Duchi et al. 2011; torch's single-tensor step,
// foreach=False, dense gradients), built from plain tfc ops like
// Adafactor.cpp. Per parameter P with gradient G, t the step count after the
// increment, lr the runtime rate, computed in f32 (f64 for f64 parameters):
//
//   G   = G + wd * P                                 (only if wd != 0)
//   clr = lr / (1 + (t - 1) * lr_decay)              (f64, as torch's float)
//   S   = S + G * G                                             "P.sum"
//   P   = P - (clr * G) / (sqrt(S) + eps)
//
// torch starts S at initial_accumulator_value; the runtime zero-fills
// state, so on the first step S reads as that value whatever it holds.
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

class AdagradRule : public OptimizerRule {
public:
  explicit AdagradRule(const TfcBuildTrainStepPassOptions &options)
      : options(options) {}

  SmallVector<StateSpec> stateOf(RankedTensorType param) const override {
    RankedTensorType type = elementwiseStateType(param);
    return {{"sum", type}};
  }
  double defaultEps() const override { return 1e-10; }

  ParamStepResult emitStep(OpBuilder &builder, Location loc,
                           const ParamStep &in) const override {
    VjpBuilder v(builder, loc);
    Type ct = optimizerComputeType(in.param);
    Value param = v.convert(in.param, ct);
    Value grad = v.convert(in.grad, ct);
    grad = addL2Penalty(builder, loc, grad, param, in.weightDecay);

    // The step size, in f64 as torch's Python float, rounded once.
    Value clr = in.lr;
    if (options.lrDecay != 0.0) {
      Type f64 = builder.getF64Type();
      Value t = stepAsF64(builder, loc, in.step);
      Value one = v.scalar(f64, 1.0);
      Value steps = v.sub(t, one);
      Value decay = v.scalar(f64, options.lrDecay);
      Value decayed = v.mul(steps, decay);
      Value factor = v.add(one, decayed);
      Value lr64 = v.convert(in.lr, f64);
      clr = v.div(lr64, factor);
    }
    clr = v.convert(clr, ct);

    Value sum = in.states[0];
    if (options.initialAccumulatorValue != 0.0)
      sum = onFirstStepUse(builder, loc, in.step,
                           options.initialAccumulatorValue, sum);
    Value square = v.mul(grad, grad);
    sum = v.add(sum, square);
    Value root = builder.create<SqrtOp>(loc, sum.getType(), sum);
    Value eps = v.scalar(ct, options.eps);
    Value denom = v.add(root, eps);
    Value scaledGrad = v.mul(clr, grad);
    Value delta = v.div(scaledGrad, denom);
    Value next = v.sub(param, delta);
    return {v.convert(next, tensorTypeOf(in.param).getElementType()), {sum}};
  }

private:
  TfcBuildTrainStepPassOptions options;
};

} // namespace

std::unique_ptr<OptimizerRule>
makeAdagradRule(const TfcBuildTrainStepPassOptions &options,
                std::string &error) {
  if (options.optimizer != "adagrad")
    return nullptr;
  // torch.optim.Adagrad's argument checks.
  if (!(std::isfinite(options.lrDecay) && options.lrDecay >= 0)) {
    error = "lr-decay must be non-negative and finite";
    return nullptr;
  }
  if (!(std::isfinite(options.initialAccumulatorValue) &&
        options.initialAccumulatorValue >= 0)) {
    error = "initial-accumulator-value must be non-negative and finite";
    return nullptr;
  }
  return std::make_unique<AdagradRule>(options);
}

} // namespace tfc
