//===- BuildTrainStep.cpp - --tfc-build-train-step ------------------------===//
//
// Builds @train_step (or, with accumulate-steps > 1, @accumulate_step and
// @apply_step) from a loss function: the forward and backward of
// --tfc-autodiff, then (optionally) GradScaler-style unscaling with an
// inf/NaN check (LossScaler), global-norm clipping, the learning rate of the
// schedule (LearningRate), and one update per parameter by the optimizer's
// rule (OptimizerRule). This file checks the options and the module; the
// functions themselves come from StepBuilder.
//
//===----------------------------------------------------------------------===//

#include "passes/training/Passes.h"

#include "passes/training/LearningRate.h"
#include "passes/training/LossScaler.h"
#include "passes/training/OptimizerRule.h"
#include "passes/training/StepBuilder.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/StringExtras.h"

#include <cmath>

namespace tfc {
#define GEN_PASS_DEF_TFCBUILDTRAINSTEPPASS
#include "passes/training/Passes.h.inc"
} // namespace tfc

using namespace mlir;
using namespace mlir::tfc;

namespace {

struct TfcBuildTrainStepPass
    : public ::tfc::impl::TfcBuildTrainStepPassBase<TfcBuildTrainStepPass> {
  using TfcBuildTrainStepPassBase::TfcBuildTrainStepPassBase;

  void runOnOperation() override {
    if (failed(run()))
      signalPassFailure();
  }

  /// The pass options as the plain struct the pieces take.
  ::tfc::TfcBuildTrainStepPassOptions options() const {
    ::tfc::TfcBuildTrainStepPassOptions o;
#define TFC_COPY_OPTION(name) o.name = name;
    TFC_COPY_OPTION(function)
    TFC_COPY_OPTION(optimizer)
    TFC_COPY_OPTION(beta1)
    TFC_COPY_OPTION(beta2)
    TFC_COPY_OPTION(eps)
    TFC_COPY_OPTION(weightDecay)
    TFC_COPY_OPTION(decayAll)
    TFC_COPY_OPTION(blockSize)
    TFC_COPY_OPTION(momentum)
    TFC_COPY_OPTION(nesterov)
    TFC_COPY_OPTION(beta2Decay)
    TFC_COPY_OPTION(eps1)
    TFC_COPY_OPTION(eps2)
    TFC_COPY_OPTION(clipThreshold)
    TFC_COPY_OPTION(maxGradNorm)
    TFC_COPY_OPTION(schedule)
    TFC_COPY_OPTION(lossScaling)
    TFC_COPY_OPTION(initScale)
    TFC_COPY_OPTION(growthFactor)
    TFC_COPY_OPTION(backoffFactor)
    TFC_COPY_OPTION(growthInterval)
    TFC_COPY_OPTION(minScale)
    TFC_COPY_OPTION(maxScale)
    TFC_COPY_OPTION(accumulateSteps)
#undef TFC_COPY_OPTION
    return o;
  }

private:
  /// Checks the options and builds the rule.
  LogicalResult checkOptions(ModuleOp module) {
    std::string error = ::tfc::checkBuildTrainStepOptions(options());
    if (error.empty())
      rule = ::tfc::makeOptimizerRule(options(), error);
    if (!error.empty())
      return module.emitError("--tfc-build-train-step: ") << error;
    return success();
  }

  LogicalResult run() {
    ModuleOp module = getOperation();
    if (failed(checkOptions(module)))
      return failure();
    auto loss = module.lookupSymbol<func::FuncOp>(function);
    if (!loss)
      return module.emitError("--tfc-build-train-step: no func.func @")
             << function << " to train (choose one with function=<name>)";
    ::tfc::StepBuilder builder(options(), *rule, loss);
    if (failed(builder.init()))
      return failure();
    SmallVector<::tfc::StepKind> kinds = ::tfc::stepKinds(options());
    for (::tfc::StepKind kind : kinds)
      if (module.lookupSymbol(::tfc::stepFunctionName(kind)))
        return loss.emitError("--tfc-build-train-step: the module already "
                              "has a symbol @")
               << ::tfc::stepFunctionName(kind);
    // Built in reverse so that each lands right after the loss and they end
    // up in the order of stepKinds.
    for (::tfc::StepKind kind : llvm::reverse(kinds))
      if (failed(builder.build(kind)))
        return failure();
    return success();
  }

  /// Shared so that the pass stays copyable (clonePass).
  std::shared_ptr<::tfc::OptimizerRule> rule;
};

} // namespace

namespace tfc {
std::string
checkBuildTrainStepOptions(const TfcBuildTrainStepPassOptions &o) {
  std::string error;
  if (!::tfc::makeOptimizerRule(o, error))
    return error;
  auto finiteNonNegative = [](double x) { return std::isfinite(x) && x >= 0; };
  if (!finiteNonNegative(o.eps))
    return "eps must be non-negative and finite";
  if (o.weightDecay >= 0 ? !std::isfinite(o.weightDecay) : o.weightDecay != -1.0)
    return "weight-decay must be non-negative and finite (or -1 for the "
           "optimizer's default)";
  if (o.nesterov && (o.optimizer != "sgd" || o.momentum == 0.0))
    return "nesterov needs optimizer=sgd and momentum > 0";
  if (!finiteNonNegative(o.maxGradNorm))
    return "max-grad-norm must be non-negative and finite (0: off)";
  if (o.accumulateSteps < 1)
    return "accumulate-steps must be at least 1 (1: no accumulation)";
  error = ::tfc::checkScheduleOptions(o);
  if (error.empty())
    error = ::tfc::checkLossScalerOptions(o);
  return error;
}
} // namespace tfc

namespace tfc {
LogicalResult parseBuildTrainStepOptions(
    StringRef text, TfcBuildTrainStepPassOptions &options,
    function_ref<LogicalResult(const Twine &)> errorHandler) {
  TfcBuildTrainStepPass pass;
  // One option at a time: llvm::cl prints a value it cannot parse
  // ("max-grad-norm=1.x") to stderr and hands the pass's error handler an
  // empty message, which would leave the JIT's and the C API's callers none.
  SmallVector<StringRef> tokens;
  llvm::SplitString(text, tokens);
  for (StringRef token : tokens) {
    std::string message;
    if (succeeded(pass.initializeOptions(token, [&](const Twine &m) {
          message = m.str();
          return failure();
        })))
      continue;
    if (StringRef(message).trim().empty()) {
      auto [key, value] = token.split('=');
      message = ("invalid value '" + value + "' for option " + key).str();
    }
    return errorHandler(message);
  }
  options = pass.options();
  return success();
}
} // namespace tfc
