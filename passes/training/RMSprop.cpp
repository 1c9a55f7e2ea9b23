//===- RMSprop.cpp - rmsprop for the train step ---------------------------===//
//
// torch.optim.RMSprop (Hinton's lecture 6e; torch's single-tensor step,
// foreach=False), built from plain tfc ops like Adafactor.cpp, so no
// optimizer kernel exists for it. Per parameter P with gradient G, computed
// in f32 (f64 for f64 parameters), alpha, eps, momentum and the L2 weight
// decay wd constants and lr the runtime rate:
//
//   G = G + wd * P                                   (only if wd != 0)
//   S = S * alpha + ((1 - alpha) * G) * G                      "P.square_avg"
//   centered: A = A * alpha + G * (1 - alpha)                  "P.grad_avg"
//             D = sqrt(S - A * A) + eps
//   else:     D = sqrt(S) + eps
//   momentum > 0: B = B * momentum + G / D                "P.momentum_buffer"
//                 P = P - lr * B
//   else:         P = P - (lr * G) / D
//
// The order of the operations is torch's (addcmul multiplies the scalar into
// the first tensor, then by the second; sqrt before eps), so the f32 results
// differ from torch's only where ATen fuses a multiply-add (add_ with alpha)
// into one rounding.
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

class RmspropRule : public OptimizerRule {
public:
  explicit RmspropRule(const TfcBuildTrainStepPassOptions &options)
      : options(options) {}

  SmallVector<StateSpec> stateOf(RankedTensorType param) const override {
    RankedTensorType type = elementwiseStateType(param);
    SmallVector<StateSpec> states = {{"square_avg", type}};
    if (options.momentum > 0)
      states.push_back({"momentum_buffer", type});
    if (options.centered)
      states.push_back({"grad_avg", type});
    return states;
  }

  ParamStepResult emitStep(OpBuilder &builder, Location loc,
                           const ParamStep &in) const override {
    VjpBuilder v(builder, loc);
    Type ct = optimizerComputeType(in.param);
    Value param = v.convert(in.param, ct);
    Value grad = v.convert(in.grad, ct);
    Value lr = v.convert(in.lr, ct);
    grad = addL2Penalty(builder, loc, grad, param, in.weightDecay);

    // One statement per op: the IR's order must not depend on the
    // compiler's order of evaluating arguments.
    // square_avg and grad_avg are Adam's moments with alpha as their decay.
    Value squareAvg =
        secondMoment(builder, loc, in.states[0], grad, options.alpha);
    ParamStepResult result;
    result.states.push_back(squareAvg);

    Value variance = squareAvg;
    Value gradAvg;
    if (options.centered) {
      gradAvg = firstMoment(builder, loc, in.states.back(), grad, options.alpha);
      Value meanSq = v.mul(gradAvg, gradAvg);
      variance = v.sub(squareAvg, meanSq);
    }
    Value root = builder.create<SqrtOp>(loc, variance.getType(), variance);
    Value eps = v.scalar(ct, options.eps);
    Value denom = v.add(root, eps);

    Value next;
    if (options.momentum > 0) {
      Value momentum = v.scalar(ct, options.momentum);
      Value keptBuf = v.mul(in.states[1], momentum);
      Value ratio = v.div(grad, denom);
      Value buffer = v.add(keptBuf, ratio);
      result.states.push_back(buffer);
      Value delta = v.mul(buffer, lr);
      next = v.sub(param, delta);
    } else {
      Value scaledGrad = v.mul(lr, grad);
      Value delta = v.div(scaledGrad, denom);
      next = v.sub(param, delta);
    }
    if (gradAvg)
      result.states.push_back(gradAvg);
    result.param = v.convert(next, tensorTypeOf(in.param).getElementType());
    return result;
  }

private:
  TfcBuildTrainStepPassOptions options;
};

} // namespace

std::unique_ptr<OptimizerRule>
makeRmspropRule(const TfcBuildTrainStepPassOptions &options,
                std::string &error) {
  if (options.optimizer != "rmsprop")
    return nullptr;
  // torch.optim.RMSprop's argument checks, and alpha < 1 (at 1 square_avg
  // would stay zero).
  if (!(options.alpha >= 0 && options.alpha < 1)) {
    error = "alpha must lie in [0, 1)";
    return nullptr;
  }
  if (!(std::isfinite(options.momentum) && options.momentum >= 0)) {
    error = "momentum must be non-negative and finite";
    return nullptr;
  }
  return std::make_unique<RmspropRule>(options);
}

} // namespace tfc
