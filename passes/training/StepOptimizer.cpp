//===- StepOptimizer.cpp - --tfc-step-optimizer ---------------------------===//
//
// Stage 5: every gradient the step returns becomes the update of its
// parameter by the optimizer's rule (OptimizerRule.h), at the learning rate
// of the schedule (LearningRate.h), with each parameter's state and the step
// counter as new arguments and updates. A step the loss scaler flagged keeps
// everything. Completes the step functions (StepForm.h).
//
//===----------------------------------------------------------------------===//

#include "passes/training/LearningRate.h"
#include "passes/training/OptimizerRule.h"
#include "passes/training/StepForm.h"
#include "passes/training/StepStages.h"
#include "passes/training/TrainStepUtils.h"

#include "dialects/tfc/TfcOps.h"
#include "dialects/tfc/TfcVjps.h"

#include "llvm/ADT/BitVector.h"

#include <cmath>

namespace tfc {
#define GEN_PASS_DEF_TFCSTEPOPTIMIZERPASS
#include "passes/training/Passes.h.inc"
} // namespace tfc

using namespace mlir;
using namespace mlir::tfc;

namespace {

struct TfcStepOptimizerPass
    : public ::tfc::impl::TfcStepOptimizerPassBase<TfcStepOptimizerPass> {
  using TfcStepOptimizerPassBase::TfcStepOptimizerPassBase;

  void runOnOperation() override {
    TFC_STEP_OPTIONS_OF_PASS(TFC_STEP_OPTIMIZER_OPTIONS, options)
    if (failed(::tfc::runStepOptimizer(getOperation(), options)))
      signalPassFailure();
  }
};

/// One result the stage adds: argument `arg` gets `value`.
struct Update {
  BlockArgument arg;
  Value value;
};

} // namespace

namespace tfc {

std::string
checkStepOptimizerOptions(const TfcBuildTrainStepPassOptions &o) {
  std::string error;
  if (!makeOptimizerRule(o, error))
    return error;
  if (o.eps >= 0 ? !std::isfinite(o.eps) : o.eps != -1.0)
    return "eps must be non-negative and finite (or -1 for the optimizer's "
           "default)";
  if (o.weightDecay >= 0 ? !std::isfinite(o.weightDecay)
                         : o.weightDecay != -1.0)
    return "weight-decay must be non-negative and finite (or -1 for the "
           "optimizer's default)";
  if (o.nesterov && (o.optimizer != "sgd" || o.momentum == 0.0))
    return "nesterov needs optimizer=sgd and momentum > 0";
  // An option of one optimizer given to another would be silently ignored.
  // Given means: not the default (Passes.td).
  static const char *const adamFamily[] = {"adamw", "adam",  "adamw8bit",
                                           "adamax", "nadam", "radam"};
  static const char *const withEps[] = {"adamw",   "adam",   "adamw8bit",
                                        "rmsprop", "adagrad", "adamax",
                                        "nadam",   "radam"};
  static const char *const withMomentum[] = {"sgd", "rmsprop"};
  static const char *const rmsprop[] = {"rmsprop"}, *const adagrad[] = {"adagrad"},
                           *const nadam[] = {"nadam"}, *const adamw8bit[] = {"adamw8bit"},
                           *const adafactor[] = {"adafactor"};
  struct OwnOption {
    bool given;
    const char *name;
    llvm::ArrayRef<const char *> owners;
  };
  for (const OwnOption &option :
       {OwnOption{o.beta1 != 0.9, "beta1", adamFamily},
        OwnOption{o.beta2 != 0.999, "beta2", adamFamily},
        OwnOption{o.eps != -1.0, "eps", withEps},
        OwnOption{o.momentum != 0.0, "momentum", withMomentum},
        OwnOption{o.alpha != 0.99, "alpha", rmsprop},
        OwnOption{o.centered, "centered", rmsprop},
        OwnOption{o.lrDecay != 0.0, "lr-decay", adagrad},
        OwnOption{o.initialAccumulatorValue != 0.0, "initial-accumulator-value",
                  adagrad},
        OwnOption{o.momentumDecay != 0.004, "momentum-decay", nadam},
        OwnOption{o.nadamFixedProduct, "nadam-fixed-product", nadam},
        OwnOption{o.blockSize != 256, "block-size", adamw8bit},
        OwnOption{o.beta2Decay != -0.8, "beta2-decay", adafactor},
        OwnOption{o.eps1 != 0.0, "eps1", adafactor},
        OwnOption{o.eps2 != 1e-3, "eps2", adafactor},
        OwnOption{o.clipThreshold != 1.0, "clip-threshold", adafactor}}) {
    if (!option.given || llvm::is_contained(option.owners, o.optimizer))
      continue;
    std::string owners;
    for (size_t i = 0; i < option.owners.size(); ++i)
      owners += std::string(i == 0 ? ""
                            : i + 1 == option.owners.size() ? " or "
                                                            : ", ") +
                option.owners[i];
    return std::string(option.name) + " is an option of optimizer=" + owners +
           " only";
  }
  return checkScheduleOptions(o);
}

LogicalResult runStepOptimizer(ModuleOp module,
                               const TfcBuildTrainStepPassOptions &options) {
  StringRef flag = stepStageFlag(StepStage::optimizer);
  if (std::string problem = checkStepOptimizerOptions(options);
      !problem.empty())
    return module.emitError(flag) << ": " << problem;
  std::string error;
  std::unique_ptr<OptimizerRule> rule = makeOptimizerRule(options, error);
  FailureOr<SmallVector<func::FuncOp>> steps =
      enterStage(module, StepStage::optimizer, /*needGradients=*/true);
  if (failed(steps))
    return failure();
  Builder b(module.getContext());
  auto f32 = RankedTensorType::get({}, b.getF32Type());
  auto f64 = RankedTensorType::get({}, b.getF64Type());
  auto i64 = RankedTensorType::get({}, b.getI64Type());
  double baseDecay = options.weightDecay >= 0 ? options.weightDecay
                                             : rule->defaultWeightDecay();
  for (func::FuncOp func : *steps) {
    SmallVector<StepGradient> grads = stepGradients(func);
    // The arguments: each parameter's state, the counter, the schedule,
    // added at once.
    SmallVector<NewStepArgument> newArgs;
    SmallVector<size_t> stateCounts;
    for (const StepGradient &grad : grads) {
      StringRef param = stepArgumentName(func, grad.param.getArgNumber());
      stateCounts.push_back(0);
      for (const StateSpec &state :
           rule->stateOf(cast<RankedTensorType>(grad.param.getType()))) {
        newArgs.push_back({state.type, TfcDialect::kStateAttrName,
                           (param + "." + state.suffix).str()});
        ++stateCounts.back();
      }
    }
    newArgs.push_back({i64, TfcDialect::kStateAttrName, kStepState.str()});
    // The schedule's rates are f64 when some parameter is (an f64 model
    // steps with torch's unrounded lr), else f32.
    bool anyF64 = llvm::any_of(grads, [](const StepGradient &grad) {
      return tensorTypeOf(grad.param).getElementType().isF64();
    });
    RankedTensorType rateType = anyF64 ? f64 : f32;
    SmallVector<ScheduleInput> inputs = scheduleInputs(options);
    for (const ScheduleInput &input : inputs)
      newArgs.push_back({input.isInteger ? i64 : rateType,
                         TfcDialect::kInputAttrName, input.name});
    FailureOr<SmallVector<BlockArgument>> added =
        addStepArguments(func, StepStage::optimizer, newArgs);
    if (failed(added))
      return failure();
    SmallVector<SmallVector<BlockArgument>> states;
    ArrayRef<BlockArgument> rest = *added;
    for (size_t count : stateCounts) {
      states.emplace_back(rest.take_front(count));
      rest = rest.drop_front(count);
    }
    BlockArgument oldStep = rest.front();
    SmallVector<Value> scheduleArgs(rest.drop_front());

    func::ReturnOp ret = stepReturn(func);
    OpBuilder builder(ret);
    setInsertionPointAfterGradients(builder, func);
    Location loc = ret.getLoc();
    VjpBuilder v(builder, loc);
    // The schedule reads the count of steps taken so far; the optimizer
    // gets the count after this one, as torch's state['step'].
    Value newStep = v.add(oldStep, i64Scalar(builder, loc, 1));
    Value lr =
        buildLearningRate(builder, loc, options, scheduleArgs, oldStep);
    SmallVector<Update> updates, stateUpdates;
    for (auto [grad, paramStates] : llvm::zip(grads, states)) {
      ParamStep in;
      in.param = grad.param;
      in.grad = grad.value;
      in.states.assign(paramStates.begin(), paramStates.end());
      // Each parameter's rate in its optimizer compute type (f64 or f32).
      in.lr = v.convert(lr, optimizerComputeType(grad.param));
      in.step = newStep;
      // Parameter groups as GPT-2/nanoGPT and Hugging Face train them:
      // biases and norm weights (rank < 2) are not decayed unless
      // decay-all; a parameter's own group settings (tfc.lr_scale,
      // tfc.weight_decay, from torch.optim's param_groups) come first.
      in.weightDecay =
          options.decayAll || tensorTypeOf(in.param).getRank() >= 2
              ? baseDecay
              : 0.0;
      unsigned argIndex = grad.param.getArgNumber();
      if (auto decay = func.getArgAttrOfType<FloatAttr>(
              argIndex, TfcDialect::kWeightDecayAttrName))
        in.weightDecay = decay.getValueAsDouble();
      if (auto scale = func.getArgAttrOfType<FloatAttr>(
              argIndex, TfcDialect::kLrScaleAttrName);
          scale && scale.getValueAsDouble() != 1.0)
        in.lr = v.mul(in.lr, v.scalar(tensorTypeOf(in.lr).getElementType(),
                                      scale.getValueAsDouble()));
      ParamStepResult out = rule->emitStep(builder, loc, in);
      updates.push_back({grad.param, out.param});
      for (auto [arg, value] : llvm::zip(paramStates, out.states))
        stateUpdates.push_back({arg, value});
    }
    // In the order of the results: parameters, their states, the count.
    updates.append(stateUpdates.begin(), stateUpdates.end());
    updates.push_back({oldStep, newStep});

    // A step the loss scaler skips keeps every parameter and state, the
    // count included.
    Value foundInf;
    if (std::optional<unsigned> index = findStepResult(
            func, TfcDialect::kOutputAttrName, kFoundInfOutput))
      foundInf = ret.getOperand(*index);
    SmallVector<NewStepResult> results;
    for (Update &update : updates) {
      if (foundInf)
        update.value = v.select(foundInf, update.arg, update.value);
      results.push_back(
          {update.value, TfcDialect::kUpdateAttrName,
           stepArgumentName(func, update.arg.getArgNumber()).str()});
    }
    if (scheduleArgs.size() > 1)
      results.push_back({lr, TfcDialect::kOutputAttrName, kAppliedLrOutput});
    addStepResults(func, results);
    // The gradients come before every result added here.
    llvm::BitVector gradResults(func.getNumResults());
    for (const StepGradient &grad : grads)
      gradResults.set(grad.result);
    eraseStepResults(func, gradResults);
  }
  finishStepFunctions(module);
  return success();
}

} // namespace tfc
