//===- TorchOptimizers.cpp - adamw, adam and sgd for the train step -------===//
//
// The optimizers that equal torch.optim step by step: each update is one
// tfc.adamw / tfc.adam / tfc.sgd op (kernel role MultiTensor), whose
// semantics are documented on the op.
//
//===----------------------------------------------------------------------===//

#include "passes/training/OptimizerRule.h"

#include "dialects/tfc/TfcOps.h"

#include <cmath>

using namespace mlir;
using namespace mlir::tfc;

namespace tfc {

OptimizerRule::~OptimizerRule() = default;

bool checkBetas(const TfcBuildTrainStepPassOptions &options,
                std::string &error) {
  if (options.beta1 >= 0 && options.beta1 < 1 && options.beta2 >= 0 &&
      options.beta2 < 1)
    return true;
  error = "beta1 and beta2 must lie in [0, 1)";
  return false;
}

RankedTensorType elementwiseStateType(RankedTensorType param) {
  Type element = param.getElementType();
  return RankedTensorType::get(
      param.getShape(),
      element.isF64() ? element : Float32Type::get(param.getContext()));
}

namespace {

/// torch.optim.AdamW / Adam: moments exp_avg and exp_avg_sq of P's type.
class AdamFamilyRule : public OptimizerRule {
public:
  AdamFamilyRule(const TfcBuildTrainStepPassOptions &options, bool decoupled)
      : options(options), decoupled(decoupled) {}

  SmallVector<StateSpec> stateOf(RankedTensorType param) const override {
    return {{"exp_avg", param}, {"exp_avg_sq", param}};
  }
  double defaultWeightDecay() const override { return decoupled ? 1e-2 : 0.0; }
  bool hasUpdateOp() const override { return true; }

  ParamStepResult emitStep(OpBuilder &builder, Location loc,
                           const ParamStep &in) const override {
    APFloat beta1(options.beta1), beta2(options.beta2), eps(options.eps),
        decay(in.weightDecay);
    Operation *op;
    if (decoupled)
      op = builder.create<AdamWOp>(loc, in.param, in.grad, in.states[0],
                                   in.states[1], in.lr, in.step, beta1, beta2,
                                   eps, decay);
    else
      op = builder.create<AdamOp>(loc, in.param, in.grad, in.states[0],
                                  in.states[1], in.lr, in.step, beta1, beta2,
                                  eps, decay);
    return {op->getResult(0), {op->getResult(1), op->getResult(2)}};
  }

private:
  TfcBuildTrainStepPassOptions options;
  bool decoupled;
};

/// torch.optim.SGD: a momentum_buffer of P's type when momentum != 0.
class SgdRule : public OptimizerRule {
public:
  explicit SgdRule(const TfcBuildTrainStepPassOptions &options)
      : options(options) {}

  SmallVector<StateSpec> stateOf(RankedTensorType param) const override {
    if (options.momentum == 0.0)
      return {};
    return {{"momentum_buffer", param}};
  }
  bool hasUpdateOp() const override { return true; }

  ParamStepResult emitStep(OpBuilder &builder, Location loc,
                           const ParamStep &in) const override {
    Value buffer = in.states.empty() ? Value() : in.states[0];
    auto sgd = builder.create<SgdOp>(
        loc, in.param, in.grad, in.lr, in.step, buffer,
        builder.getF64FloatAttr(options.momentum), builder.getF64FloatAttr(0.0),
        builder.getF64FloatAttr(in.weightDecay),
        options.nesterov ? builder.getUnitAttr() : UnitAttr(), UnitAttr());
    ParamStepResult result{sgd.getParamOut(), {}};
    if (buffer)
      result.states.push_back(sgd.getMomentumBufferOut());
    return result;
  }

private:
  TfcBuildTrainStepPassOptions options;
};

} // namespace

std::unique_ptr<OptimizerRule>
makeTorchOptimizerRule(const TfcBuildTrainStepPassOptions &options,
                       std::string &error) {
  const std::string &name = options.optimizer;
  if (name != "adamw" && name != "adam" && name != "sgd")
    return nullptr;
  if (name != "sgd" && !checkBetas(options, error))
    return nullptr;
  if (!(std::isfinite(options.momentum) && options.momentum >= 0)) {
    error = "momentum must be non-negative and finite";
    return nullptr;
  }
  if (name == "sgd")
    return std::make_unique<SgdRule>(options);
  return std::make_unique<AdamFamilyRule>(options, name == "adamw");
}

std::unique_ptr<OptimizerRule>
makeOptimizerRule(const TfcBuildTrainStepPassOptions &options,
                  std::string &error) {
  error.clear();
  using Factory = std::unique_ptr<OptimizerRule> (*)(
      const TfcBuildTrainStepPassOptions &, std::string &);
  for (Factory factory : {makeTorchOptimizerRule, makeAdafactorRule,
                          makeAdamW8bitRule, makeRmspropRule, makeAdagradRule,
                          makeAdamaxRule, makeNAdamRule, makeRAdamRule}) {
    std::unique_ptr<OptimizerRule> rule = factory(options, error);
    if (!rule || options.eps >= 0) {
      if (rule || !error.empty())
        return rule;
      continue;
    }
    // eps < 0: the optimizer's own default, given to a second rule.
    TfcBuildTrainStepPassOptions resolved = options;
    resolved.eps = rule->defaultEps();
    return factory(resolved, error);
  }
  error = "unknown optimizer '" + options.optimizer +
          "' (expected adamw, adam, sgd, adafactor, adamw8bit, rmsprop, "
          "adagrad, adamax, nadam or radam)";
  return nullptr;
}

} // namespace tfc
