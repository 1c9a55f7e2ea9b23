//===- Adamax.cpp - adamax for the train step -----------------------------===//
//
// torch.optim.Adamax (Kingma & Ba 2015, section 7.1; torch's single-tensor
// step, foreach=False), built from plain tfc ops like Adafactor.cpp. Per
// parameter P with gradient G, t the step count after the increment, lr the
// runtime rate, computed in f32 (f64 for f64 parameters):
//
//   G   = G + wd * P                                 (only if wd != 0)
//   M   = M * beta1 + G * (1 - beta1)                         "P.exp_avg"
//   U   = max(U * beta2, |G| + eps)                           "P.exp_inf"
//   clr = lr / (1 - beta1^t)                         (f64, as torch's float)
//   P   = P - (clr * M) / U
//
//===----------------------------------------------------------------------===//

#include "passes/training/OptimizerRule.h"

#include "passes/training/TrainStepUtils.h"

#include "dialects/tfc/TfcOps.h"
#include "dialects/tfc/TfcVjps.h"

using namespace mlir;
using namespace mlir::tfc;

namespace tfc {
namespace {

class AdamaxRule : public OptimizerRule {
public:
  explicit AdamaxRule(const TfcBuildTrainStepPassOptions &options)
      : options(options) {}

  SmallVector<StateSpec> stateOf(RankedTensorType param) const override {
    RankedTensorType type = elementwiseStateType(param);
    return {{"exp_avg", type}, {"exp_inf", type}};
  }

  ParamStepResult emitStep(OpBuilder &builder, Location loc,
                           const ParamStep &in) const override {
    VjpBuilder v(builder, loc);
    Type ct = optimizerComputeType(in.param);
    Type f64 = builder.getF64Type();
    Value param = v.convert(in.param, ct);
    Value grad = v.convert(in.grad, ct);
    grad = addL2Penalty(builder, loc, grad, param, in.weightDecay);

    // One statement per op: the IR's order must not depend on the
    // compiler's order of evaluating arguments.
    Value expAvg = firstMoment(builder, loc, in.states[0], grad, options.beta1);
    Value beta2 = v.scalar(ct, options.beta2);
    Value decayed = v.mul(in.states[1], beta2);
    Value magnitude = builder.create<AbsOp>(loc, grad.getType(), grad);
    Value eps = v.scalar(ct, options.eps);
    Value floored = v.add(magnitude, eps);
    Value expInf = builder.create<MaximumOp>(loc, decayed, floored);

    Value t = stepAsF64(builder, loc, in.step);
    Value beta1t = powOfStep(builder, loc, options.beta1, t);
    Value one = v.scalar(f64, 1.0);
    Value correction = v.sub(one, beta1t);
    Value lr64 = v.convert(in.lr, f64);
    Value clr64 = v.div(lr64, correction);
    Value clr = v.convert(clr64, ct);

    Value scaled = v.mul(clr, expAvg);
    Value delta = v.div(scaled, expInf);
    Value next = v.sub(param, delta);
    return {v.convert(next, tensorTypeOf(in.param).getElementType()),
            {expAvg, expInf}};
  }

private:
  TfcBuildTrainStepPassOptions options;
};

} // namespace

std::unique_ptr<OptimizerRule>
makeAdamaxRule(const TfcBuildTrainStepPassOptions &options,
               std::string &error) {
  if (options.optimizer != "adamax")
    return nullptr;
  // torch.optim.Adamax's argument checks.
  if (!checkBetas(options, error))
    return nullptr;
  return std::make_unique<AdamaxRule>(options);
}

} // namespace tfc
