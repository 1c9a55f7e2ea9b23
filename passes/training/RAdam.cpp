//===- RAdam.cpp - radam for the train step -------------------------------===//
//
// torch.optim.RAdam (Liu et al. 2020, Adam with the variance of the adaptive
// rate rectified; torch's single-tensor step, foreach=False), built from
// plain tfc ops like Adafactor.cpp. Per parameter P with gradient G, t the
// step count after the increment, lr the runtime rate, computed in f32 (f64
// for f64 parameters):
//
//   G      = G + wd * P                              (only if wd != 0)
//   M      = M * beta1 + G * (1 - beta1)                      "P.exp_avg"
//   V      = V * beta2 + ((1 - beta2) * G) * G                "P.exp_avg_sq"
//   Mhat   = M / (1 - beta1^t)
//   rho    = 2 / (1 - beta2) - 1                               (a constant)
//   rho_t  = rho - 2 t beta2^t / (1 - beta2^t)       (f64, as torch's float)
//   rho_t > 5: r = sqrt((rho_t - 4)(rho_t - 2) rho / ((rho - 4)(rho - 2)
//                  rho_t))                                          (f64)
//              A = (1 / (sqrt(V) + eps)) * sqrt(1 - beta2^t)
//              P = P - ((Mhat * lr) * A) * r
//   else:      P = P - Mhat * lr
//
// torch branches on rho_t in Python; here both updates are computed and a
// tfc.select on the 0-d condition takes one (r is NaN where rho_t < 4, in
// the update not taken).
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

class RAdamRule : public OptimizerRule {
public:
  explicit RAdamRule(const TfcBuildTrainStepPassOptions &options)
      : options(options) {}

  SmallVector<StateSpec> stateOf(RankedTensorType param) const override {
    RankedTensorType type = elementwiseStateType(param);
    return {{"exp_avg", type}, {"exp_avg_sq", type}};
  }

  ParamStepResult emitStep(OpBuilder &builder, Location loc,
                           const ParamStep &in) const override {
    VjpBuilder v(builder, loc);
    Type ct = optimizerComputeType(in.param);
    Type f64 = builder.getF64Type();
    Value param = v.convert(in.param, ct);
    Value grad = v.convert(in.grad, ct);
    Value lr = v.convert(in.lr, ct);
    grad = addL2Penalty(builder, loc, grad, param, in.weightDecay);

    // The step-dependent scalars in f64. One statement per op: the IR's
    // order must not depend on the compiler's order of evaluating
    // arguments.
    Value t = stepAsF64(builder, loc, in.step);
    Value one = v.scalar(f64, 1.0);
    Value beta1t = powOfStep(builder, loc, options.beta1, t);
    Value correction1 = v.sub(one, beta1t);
    Value beta2t = powOfStep(builder, loc, options.beta2, t);
    Value correction2 = v.sub(one, beta2t);
    double rhoInf = 2 / (1 - options.beta2) - 1;
    Value rhoInfValue = v.scalar(f64, rhoInf);
    Value two = v.scalar(f64, 2.0);
    Value twoT = v.mul(two, t);
    Value weighted = v.mul(twoT, beta2t);
    Value ratio = v.div(weighted, correction2);
    Value rhoT = v.sub(rhoInfValue, ratio);
    Value five = v.scalar(f64, 5.0);
    Value rectify = v.compare(CompareDirection::gt, rhoT, five);
    Value four = v.scalar(f64, 4.0);
    Value rhoMinus4 = v.sub(rhoT, four);
    Value rhoMinus2 = v.sub(rhoT, two);
    Value numerator0 = v.mul(rhoMinus4, rhoMinus2);
    Value numerator = v.mul(numerator0, rhoInfValue);
    Value limit = v.scalar(f64, (rhoInf - 4) * (rhoInf - 2));
    Value denominator = v.mul(limit, rhoT);
    Value quotient = v.div(numerator, denominator);
    Value rect64 = builder.create<SqrtOp>(loc, quotient.getType(), quotient);
    Value rootCorrection64 =
        builder.create<SqrtOp>(loc, correction2.getType(), correction2);

    Value expAvg = firstMoment(builder, loc, in.states[0], grad, options.beta1);
    Value expAvgSq =
        secondMoment(builder, loc, in.states[1], grad, options.beta2);
    Value correction1Ct = v.convert(correction1, ct);
    Value corrected = v.div(expAvg, correction1Ct);
    Value plain = v.mul(corrected, lr);

    // adaptive_lr = sqrt(bias_correction2) / (sqrt(V) + eps): a Python
    // float over a tensor, which torch computes as reciprocal() * float.
    Value root = builder.create<SqrtOp>(loc, expAvgSq.getType(), expAvgSq);
    Value eps = v.scalar(ct, options.eps);
    Value denom = v.add(root, eps);
    Value unit = v.scalar(ct, 1.0);
    Value reciprocal = v.div(unit, denom);
    Value rootCorrection = v.convert(rootCorrection64, ct);
    Value adaptiveLr = v.mul(reciprocal, rootCorrection);
    Value rect = v.convert(rect64, ct);
    Value adapted = v.mul(plain, adaptiveLr);
    Value rectified = v.mul(adapted, rect);
    Value delta = v.select(rectify, rectified, plain);
    Value next = v.sub(param, delta);
    return {v.convert(next, tensorTypeOf(in.param).getElementType()),
            {expAvg, expAvgSq}};
  }

private:
  TfcBuildTrainStepPassOptions options;
};

} // namespace

std::unique_ptr<OptimizerRule>
makeRAdamRule(const TfcBuildTrainStepPassOptions &options, std::string &error) {
  if (options.optimizer != "radam")
    return nullptr;
  // torch.optim.RAdam's argument checks.
  if (!checkBetas(options, error))
    return nullptr;
  return std::make_unique<RAdamRule>(options);
}

} // namespace tfc
