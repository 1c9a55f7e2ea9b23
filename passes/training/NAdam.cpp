//===- NAdam.cpp - nadam for the train step -------------------------------===//
//
// torch.optim.NAdam (Dozat 2016, Adam with Nesterov momentum and a momentum
// schedule; torch's single-tensor step, foreach=False), built from plain tfc
// ops like Adafactor.cpp. Per parameter P with gradient G, t the step count
// after the increment, lr the runtime rate, psi = momentum-decay, computed in
// f32 (f64 for f64 parameters):
//
//   G     = G + wd * P                               (only if wd != 0)
//   mu_t  = beta1 (1 - 0.5 * 0.96^(t psi))           (f64, as torch's float)
//   mu_t1 = beta1 (1 - 0.5 * 0.96^((t + 1) psi))     (f64)
//   Pi    = Pi * f32(mu_t)                          "P.mu_product" (0-d f32)
//   Pi1   = Pi * f32(mu_t) * f32(mu_t1)              (f32, as torch's tensor)
//   M     = M * beta1 + G * (1 - beta1)                       "P.exp_avg"
//   V     = V * beta2 + ((1 - beta2) * G) * G                 "P.exp_avg_sq"
//   D     = sqrt(V / (1 - beta2^t)) + eps
//   P     = P - (lr (1 - mu_t) / (1 - Pi) * G) / D   (the factors in f64)
//   P     = P - (lr mu_t1 / (1 - Pi1) * M) / D
//
// torch starts Pi at 1; the runtime zero-fills state, so on the first step
// Pi reads as 1 whatever it holds. Pi is a state of each parameter, as in
// torch's state_dict (all parameters hold the same value).
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

class NAdamRule : public OptimizerRule {
public:
  explicit NAdamRule(const TfcBuildTrainStepPassOptions &options)
      : options(options) {}

  SmallVector<StateSpec> stateOf(RankedTensorType param) const override {
    RankedTensorType type = elementwiseStateType(param);
    auto scalar =
        RankedTensorType::get({}, Float32Type::get(param.getContext()));
    return {{"mu_product", scalar}, {"exp_avg", type}, {"exp_avg_sq", type}};
  }

  ParamStepResult emitStep(OpBuilder &builder, Location loc,
                           const ParamStep &in) const override {
    VjpBuilder v(builder, loc);
    Type ct = optimizerComputeType(in.param);
    Type f32 = builder.getF32Type();
    Type f64 = builder.getF64Type();
    Value param = v.convert(in.param, ct);
    Value grad = v.convert(in.grad, ct);
    grad = addL2Penalty(builder, loc, grad, param, in.weightDecay);

    // The momentum schedule, in f64 from the step count. One statement per
    // op: the IR's order must not depend on the compiler's order of
    // evaluating arguments.
    Value t = stepAsF64(builder, loc, in.step);
    Value one = v.scalar(f64, 1.0);
    Value beta2t = powOfStep(builder, loc, options.beta2, t);
    Value correction2 = v.sub(one, beta2t);
    Value mu = momentumAt(builder, loc, t);
    Value tNext = v.add(t, one);
    Value muNext = momentumAt(builder, loc, tNext);

    // The product of the momenta, an f32 tensor in torch.
    Value mu32 = v.convert(mu, f32);
    Value muNext32 = v.convert(muNext, f32);
    Value oldProduct = onFirstStepUse(builder, loc, in.step, 1.0, in.states[0]);
    Value product = v.mul(oldProduct, mu32);
    // torch 1.13 multiplies by mu_t once more; torch >= 2.0 does not.
    Value productMu = options.nadamFixedProduct ? product : v.mul(product, mu32);
    Value productNext = v.mul(productMu, muNext32);

    Value expAvg = firstMoment(builder, loc, in.states[1], grad, options.beta1);
    Value expAvgSq =
        secondMoment(builder, loc, in.states[2], grad, options.beta2);
    Value correction2Ct = v.convert(correction2, ct);
    Value corrected = v.div(expAvgSq, correction2Ct);
    Value root = builder.create<SqrtOp>(loc, corrected.getType(), corrected);
    Value eps = v.scalar(ct, options.eps);
    Value denom = v.add(root, eps);

    // The two step sizes, in f64 from the f32 products (torch's .item()).
    Value lr64 = v.convert(in.lr, f64);
    Value product64 = v.convert(product, f64);
    Value productNext64 = v.convert(productNext, f64);
    Value gradWeight = v.sub(one, mu);
    Value gradScaled = v.mul(lr64, gradWeight);
    Value gradRest = v.sub(one, product64);
    Value gradStep64 = v.div(gradScaled, gradRest);
    Value avgScaled = v.mul(lr64, muNext);
    Value avgRest = v.sub(one, productNext64);
    Value avgStep64 = v.div(avgScaled, avgRest);
    Value gradStep = v.convert(gradStep64, ct);
    Value avgStep = v.convert(avgStep64, ct);

    Value gradTerm = v.mul(gradStep, grad);
    Value gradDelta = v.div(gradTerm, denom);
    Value half = v.sub(param, gradDelta);
    Value avgTerm = v.mul(avgStep, expAvg);
    Value avgDelta = v.div(avgTerm, denom);
    Value next = v.sub(half, avgDelta);
    return {v.convert(next, tensorTypeOf(in.param).getElementType()),
            {product, expAvg, expAvgSq}};
  }

private:
  /// beta1 * (1 - 0.5 * 0.96^(t * psi)) for a 0-d f64 t.
  Value momentumAt(OpBuilder &builder, Location loc, Value t) const {
    VjpBuilder v(builder, loc);
    Type f64 = builder.getF64Type();
    Value psi = v.scalar(f64, options.momentumDecay);
    Value exponent = v.mul(t, psi);
    Value power = powOfStep(builder, loc, 0.96, exponent);
    Value half = v.scalar(f64, 0.5);
    Value halved = v.mul(half, power);
    Value one = v.scalar(f64, 1.0);
    Value rest = v.sub(one, halved);
    Value beta1 = v.scalar(f64, options.beta1);
    return v.mul(beta1, rest);
  }

  TfcBuildTrainStepPassOptions options;
};

} // namespace

std::unique_ptr<OptimizerRule>
makeNAdamRule(const TfcBuildTrainStepPassOptions &options, std::string &error) {
  if (options.optimizer != "nadam")
    return nullptr;
  // torch.optim.NAdam's argument checks.
  if (!checkBetas(options, error))
    return nullptr;
  if (!(std::isfinite(options.momentumDecay) && options.momentumDecay >= 0)) {
    error = "momentum-decay must be non-negative and finite";
    return nullptr;
  }
  return std::make_unique<NAdamRule>(options);
}

} // namespace tfc
