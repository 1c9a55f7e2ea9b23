//===- BuildTrainStep.cpp - --tfc-build-train-step ------------------------===//
//
// Builds @train_step from a loss function: the forward and backward of
// --tfc-autodiff, then (optionally) GradScaler-style unscaling with an
// inf/NaN check (LossScaler), global-norm clipping, the learning rate of the
// schedule (LearningRate), and one update per parameter by the optimizer's
// rule (OptimizerRule). Every parameter and state comes back as a result
// marked tfc.update, which the lowering writes over the argument in place, so
// the runtime keeps the whole training state on the device between steps.
//
//===----------------------------------------------------------------------===//

#include "passes/training/Passes.h"

#include "passes/autodiff/ReverseMode.h"
#include "passes/training/LearningRate.h"
#include "passes/training/LossScaler.h"
#include "passes/training/OptimizerRule.h"
#include "passes/training/TrainStepUtils.h"

#include "dialects/tfc/TfcOps.h"
#include "dialects/tfc/TfcVjps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/StringSet.h"

#include <cmath>

namespace tfc {
#define GEN_PASS_DEF_TFCBUILDTRAINSTEPPASS
#include "passes/training/Passes.h.inc"
} // namespace tfc

using namespace mlir;
using namespace mlir::tfc;

namespace {

/// One argument of @train_step before the function exists.
struct ArgSpec {
  Type type;
  DictionaryAttr attrs;
};

/// Where each kind of argument sits in @train_step's signature.
struct Layout {
  unsigned numParams = 0;
  /// firstState[i]: the first state argument of parameter i (its states
  /// are consecutive, in the order of OptimizerRule::stateOf).
  SmallVector<unsigned> firstState, numStates;
  unsigned step = 0, scale = 0, tracker = 0;
  /// The learning-rate inputs (lr first), as scheduleInputs lists them.
  SmallVector<unsigned> schedule;
  /// The first of the loss's other (batch) arguments.
  unsigned firstBatch = 0;
};

/// A parameter or state argument with the value that replaces it.
struct Update {
  unsigned arg;
  Value value;
};

struct TfcBuildTrainStepPass
    : public ::tfc::impl::TfcBuildTrainStepPassBase<TfcBuildTrainStepPass> {
  using TfcBuildTrainStepPassBase::TfcBuildTrainStepPassBase;

  void runOnOperation() override {
    if (failed(run()))
      signalPassFailure();
  }

private:
  static constexpr StringLiteral kEntry = "train_step";

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
#undef TFC_COPY_OPTION
    return o;
  }

  /// Checks the options shared by every optimizer and builds the rule.
  LogicalResult checkOptions(ModuleOp module) {
    auto fail = [&](const Twine &message) {
      return module.emitError("--tfc-build-train-step: ") << message;
    };
    std::string error;
    rule = ::tfc::makeOptimizerRule(options(), error);
    if (!rule)
      return fail(error);
    auto finiteNonNegative = [](double x) { return std::isfinite(x) && x >= 0; };
    if (!finiteNonNegative(eps))
      return fail("eps must be non-negative and finite");
    if (weightDecay >= 0 ? !std::isfinite(weightDecay.getValue())
                         : weightDecay != -1.0)
      return fail("weight-decay must be non-negative and finite (or -1 for "
                  "the optimizer's default)");
    if (nesterov && (optimizer != "sgd" || momentum == 0.0))
      return fail("nesterov needs optimizer=sgd and momentum > 0");
    if (!finiteNonNegative(maxGradNorm))
      return fail("max-grad-norm must be non-negative and finite (0: off)");
    error = ::tfc::checkScheduleOptions(options());
    if (error.empty())
      error = ::tfc::checkLossScalerOptions(options());
    if (!error.empty())
      return fail(error);
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
    if (loss.isExternal() || !loss.getBody().hasOneBlock())
      return loss.emitError("--tfc-build-train-step: @")
             << loss.getName() << " must have a body of exactly one block";
    auto lossType = loss.getNumResults() == 1
                        ? dyn_cast<RankedTensorType>(loss.getResultTypes()[0])
                        : RankedTensorType();
    if (!lossType || lossType.getRank() != 0 ||
        !isa<FloatType>(lossType.getElementType()))
      return loss.emitError("--tfc-build-train-step: @")
             << loss.getName()
             << " must return one scalar loss (a 0-d floating-point tensor)";
    if (module.lookupSymbol(kEntry))
      return loss.emitError("--tfc-build-train-step: the module already has "
                            "a symbol @")
             << kEntry;

    MLIRContext *ctx = &getContext();
    Builder b(ctx);
    auto f32 = RankedTensorType::get({}, b.getF32Type());
    auto i64 = RankedTensorType::get({}, b.getI64Type());
    auto named = [&](StringRef key, StringRef name) {
      return b.getDictionaryAttr(b.getNamedAttr(key, b.getStringAttr(name)));
    };

    // The signature: params, their optimizer state, scalar state, the
    // learning-rate inputs, then the batch.
    SmallVector<ArgSpec> args;
    SmallVector<unsigned> lossParams, lossOthers;
    SmallVector<std::string> paramNames;
    for (unsigned i = 0, e = loss.getNumArguments(); i < e; ++i) {
      if (!loss.getArgAttr(i, TfcDialect::kParamAttrName)) {
        lossOthers.push_back(i);
        continue;
      }
      auto name = loss.getArgAttrOfType<StringAttr>(
          i, TfcDialect::kParamAttrName);
      lossParams.push_back(i);
      paramNames.push_back(name.str());
      args.push_back({loss.getArgumentTypes()[i],
                      named(TfcDialect::kParamAttrName, name)});
    }
    if (lossParams.empty())
      return loss.emitError("--tfc-build-train-step: @")
             << loss.getName()
             << " has no argument marked tfc.param: nothing to train";
    Layout layout;
    layout.numParams = lossParams.size();
    for (auto [index, name] : llvm::enumerate(paramNames)) {
      auto paramType = cast<RankedTensorType>(args[index].type);
      SmallVector<::tfc::StateSpec> states = rule->stateOf(paramType);
      layout.firstState.push_back(args.size());
      layout.numStates.push_back(states.size());
      for (const ::tfc::StateSpec &state : states)
        args.push_back({state.type, named(TfcDialect::kStateAttrName,
                                          name + "." + state.suffix)});
    }
    layout.step = args.size();
    args.push_back({i64, named(TfcDialect::kStateAttrName, "step")});
    if (lossScaling) {
      layout.scale = args.size();
      args.push_back({f32, named(TfcDialect::kStateAttrName, "loss_scale")});
      layout.tracker = args.size();
      args.push_back(
          {i64, named(TfcDialect::kStateAttrName, "growth_tracker")});
    }
    for (const ::tfc::ScheduleInput &input : ::tfc::scheduleInputs(options())) {
      layout.schedule.push_back(args.size());
      args.push_back({input.isInteger ? i64 : f32,
                      named(TfcDialect::kInputAttrName, input.name)});
    }
    layout.firstBatch = args.size();
    for (unsigned i : lossOthers) {
      DictionaryAttr attrs = loss.getArgAttrDict(i);
      if (!loss.getArgAttr(i, TfcDialect::kInputAttrName)) {
        NamedAttrList list(attrs);
        list.set(TfcDialect::kInputAttrName,
                 b.getStringAttr("arg" + std::to_string(i)));
        attrs = list.getDictionary(ctx);
      }
      args.push_back({loss.getArgumentTypes()[i], attrs});
    }
    // The runtime binds by name: a loss argument must not take a name the
    // train step gives to its own state or inputs.
    llvm::StringSet<> names;
    for (const ArgSpec &arg : args) {
      for (StringRef key : {TfcDialect::kParamAttrName,
                            TfcDialect::kInputAttrName,
                            TfcDialect::kStateAttrName}) {
        auto name = arg.attrs ? arg.attrs.getAs<StringAttr>(key) : StringAttr();
        if (name && !names.insert(name.getValue()).second)
          return loss.emitError("--tfc-build-train-step: the name '")
                 << name.getValue()
                 << "' of an argument of @" << loss.getName()
                 << " collides with a name of the train step's arguments";
      }
    }

    // The function, with the loss body cloned into it.
    SmallVector<Type> argTypes = llvm::map_to_vector(
        args, [](const ArgSpec &arg) { return arg.type; });
    OpBuilder moduleBuilder(loss);
    moduleBuilder.setInsertionPointAfter(loss);
    auto step = moduleBuilder.create<func::FuncOp>(
        loss.getLoc(), kEntry,
        b.getFunctionType(argTypes, SmallVector<Type>{lossType}));
    for (auto [index, arg] : llvm::enumerate(args))
      if (arg.attrs)
        step.setArgAttrs(index, arg.attrs);
    Block *block = step.addEntryBlock();
    IRMapping mapping;
    for (auto [index, lossIndex] : llvm::enumerate(lossParams))
      mapping.map(loss.getArgument(lossIndex), block->getArgument(index));
    for (auto [index, lossIndex] : llvm::enumerate(lossOthers))
      mapping.map(loss.getArgument(lossIndex),
                  block->getArgument(layout.firstBatch + index));
    OpBuilder builder = OpBuilder::atBlockEnd(block);
    for (Operation &op : loss.front())
      builder.clone(op, mapping);

    if (failed(buildBody(step, lossType, layout))) {
      step.erase();
      return failure();
    }
    return success();
  }

  /// Differentiates, unscales, clips and applies the optimizer in `step`.
  LogicalResult buildBody(func::FuncOp step, RankedTensorType lossType,
                          const Layout &layout) {
    Block &block = step.front();
    auto ret = cast<func::ReturnOp>(block.getTerminator());
    Location loc = ret.getLoc();
    OpBuilder builder(ret);
    VjpBuilder v(builder, loc);
    Type f32 = builder.getF32Type();
    ::tfc::LossScaler scaler(options(), builder, loc);

    // Loss scaling: the loss times the scale is what gets differentiated.
    Value plainLoss = ret.getOperand(0);
    Value scale;
    if (lossScaling) {
      scale = scaler.currentScale(step.getArgument(layout.scale));
      ret.setOperand(0, v.mul(plainLoss,
                              v.convert(scale, lossType.getElementType())));
    }

    SmallVector<unsigned> params =
        llvm::to_vector(llvm::seq<unsigned>(0, layout.numParams));
    if (failed(::tfc::appendGradients(step, params)))
      return failure();
    builder.setInsertionPoint(ret);
    SmallVector<Value> grads = llvm::to_vector(ret.getOperands().drop_front());

    Value foundInf;
    if (lossScaling)
      foundInf = scaler.unscaleAndCheck(grads, scale);

    if (maxGradNorm > 0) {
      // torch.nn.utils.clip_grad_norm_: one norm over all gradients.
      Value total = v.scalar(f32, 0.0);
      for (Value grad : grads) {
        Value g = v.convert(grad, f32);
        total = v.add(total, ::tfc::sumAll(builder, loc, v.mul(g, g)));
      }
      Value norm = builder.create<SqrtOp>(loc, total.getType(), total);
      Value coef = v.div(v.scalar(f32, maxGradNorm),
                         v.add(norm, v.scalar(f32, 1e-6)));
      Value clamped = builder.create<MinimumOp>(loc, coef.getType(), coef,
                                                v.scalar(f32, 1.0));
      for (Value &grad : grads)
        grad = v.mul(grad, v.convert(clamped, tensorTypeOf(grad).getElementType()));
    }

    // The schedule reads the count of steps taken so far; the optimizer gets
    // the count after this one, as torch's state['step'].
    Value oldStep = step.getArgument(layout.step);
    Value newStep = v.add(oldStep, ::tfc::i64Scalar(builder, loc, 1));
    SmallVector<Value> scheduleArgs = llvm::map_to_vector(
        layout.schedule, [&](unsigned arg) -> Value { return step.getArgument(arg); });
    Value lr = ::tfc::buildLearningRate(builder, loc, options(), scheduleArgs,
                                        oldStep);
    double baseDecay =
        weightDecay >= 0 ? weightDecay.getValue() : rule->defaultWeightDecay();
    SmallVector<Update> updates, stateUpdates;
    for (unsigned i = 0; i < layout.numParams; ++i) {
      ::tfc::ParamStep in;
      in.param = step.getArgument(i);
      in.grad = grads[i];
      for (unsigned s = 0; s < layout.numStates[i]; ++s)
        in.states.push_back(step.getArgument(layout.firstState[i] + s));
      in.lr = lr;
      in.step = newStep;
      // Parameter groups as GPT-2/nanoGPT and Hugging Face train them:
      // biases and norm weights (rank < 2) are not decayed unless decay-all.
      in.weightDecay =
          decayAll || tensorTypeOf(in.param).getRank() >= 2 ? baseDecay : 0.0;
      ::tfc::ParamStepResult out = rule->emitStep(builder, loc, in);
      updates.push_back({i, out.param});
      for (auto [s, value] : llvm::enumerate(out.states))
        stateUpdates.push_back({unsigned(layout.firstState[i] + s), value});
    }
    updates.append(stateUpdates.begin(), stateUpdates.end());
    updates.push_back({layout.step, newStep});

    if (lossScaling) {
      // A skipped step keeps every parameter and state, the count included.
      for (Update &update : updates)
        update.value =
            v.select(foundInf, step.getArgument(update.arg), update.value);
      auto [nextScale, nextTracker] = scaler.update(
          scale, step.getArgument(layout.tracker), foundInf);
      updates.push_back({layout.scale, nextScale});
      updates.push_back({layout.tracker, nextTracker});
    }

    SmallVector<Value> results{plainLoss};
    SmallVector<DictionaryAttr> resultAttrs;
    auto named = [&](StringRef key, StringRef name) {
      return builder.getDictionaryAttr(
          builder.getNamedAttr(key, builder.getStringAttr(name)));
    };
    resultAttrs.push_back(named(TfcDialect::kOutputAttrName, "loss"));
    for (const Update &update : updates) {
      results.push_back(update.value);
      resultAttrs.push_back(
          named(TfcDialect::kUpdateAttrName, argName(step, update.arg)));
    }
    if (foundInf) {
      results.push_back(foundInf);
      resultAttrs.push_back(named(TfcDialect::kOutputAttrName, "found_inf"));
    }
    if (layout.schedule.size() > 1) {
      results.push_back(lr);
      resultAttrs.push_back(
          named(TfcDialect::kOutputAttrName, ::tfc::kAppliedLrOutput));
    }
    ret->setOperands(results);
    step.setFunctionType(builder.getFunctionType(
        step.getArgumentTypes(), ValueRange(results).getTypes()));
    step.setAllResultAttrs(resultAttrs);
    return success();
  }

  /// The tfc.param or tfc.state name of argument `arg`.
  static std::string argName(func::FuncOp step, unsigned arg) {
    for (StringRef key : {TfcDialect::kParamAttrName, TfcDialect::kStateAttrName})
      if (auto name = step.getArgAttrOfType<StringAttr>(arg, key))
        return name.str();
    return std::string();
  }

  /// Shared so that the pass stays copyable (clonePass).
  std::shared_ptr<::tfc::OptimizerRule> rule;
};

} // namespace
