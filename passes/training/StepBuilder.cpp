//===- StepBuilder.cpp - the functions of --tfc-build-train-step ----------===//
//
// One signature builder and one optimizer tail for the three function
// shapes. @train_step = loss body + gradients + tail; @accumulate_step =
// loss body + gradients of (loss / k) * scale added to accumulators;
// @apply_step = tail on the accumulators, which it then zeroes. Every
// parameter and state comes back as a result marked tfc.update, which the
// lowering writes over the argument in place, so the runtime keeps the whole
// training state on the device between steps.
//
//===----------------------------------------------------------------------===//

#include "passes/training/StepBuilder.h"

#include "passes/autodiff/ReverseMode.h"
#include "passes/training/LearningRate.h"
#include "passes/training/LossScaler.h"
#include "passes/training/TrainStepUtils.h"

#include "dialects/tfc/TfcOps.h"
#include "dialects/tfc/TfcVjps.h"

#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/StringSet.h"

using namespace mlir;
using namespace mlir::tfc;

namespace tfc {

StringRef stepFunctionName(StepKind kind) {
  switch (kind) {
  case StepKind::train:
    return "train_step";
  case StepKind::accumulate:
    return "accumulate_step";
  case StepKind::apply:
    return "apply_step";
  }
  llvm_unreachable("unknown step kind");
}

SmallVector<StepKind> stepKinds(const TfcBuildTrainStepPassOptions &options) {
  if (options.accumulateSteps > 1)
    return {StepKind::accumulate, StepKind::apply};
  return {StepKind::train};
}

/// Where each kind of argument sits in a step function's signature; the
/// arguments a kind lacks are absent (empty vectors, std::nullopt).
struct StepBuilder::Layout {
  struct Arg {
    Type type;
    DictionaryAttr attrs;
  };
  SmallVector<Arg> args;
  unsigned numParams = 0;
  /// firstState[i]: the first optimizer-state argument of parameter i (its
  /// states are consecutive, in the order of OptimizerRule::stateOf).
  SmallVector<unsigned> firstState, numStates;
  /// accumulators[i]: the gradient accumulator of parameter i.
  SmallVector<unsigned> accumulators;
  std::optional<unsigned> step, scale, tracker;
  /// The learning-rate inputs (lr first), as scheduleInputs lists them.
  SmallVector<unsigned> schedule;
  /// The first of the loss's other (batch) arguments.
  std::optional<unsigned> firstBatch;
};

/// What the optimizer tail produces.
struct StepBuilder::Tail {
  struct Update {
    unsigned arg;
    Value value;
  };
  /// New values of parameters, optimizer state, step and scaler state.
  SmallVector<Update> updates;
  /// The 0-d i1 overflow flag (loss scaling) and the applied rate (with a
  /// schedule that has more inputs than lr); null otherwise.
  Value foundInf, appliedLr;
};

LogicalResult StepBuilder::init() {
  auto fail = [&]() {
    return loss.emitError("--tfc-build-train-step: @") << loss.getName();
  };
  if (loss.isExternal() || !loss.getBody().hasOneBlock())
    return fail() << " must have a body of exactly one block";
  lossType = loss.getNumResults() == 1
                 ? dyn_cast<RankedTensorType>(loss.getResultTypes()[0])
                 : RankedTensorType();
  if (!lossType || lossType.getRank() != 0 ||
      !isa<FloatType>(lossType.getElementType()))
    return fail()
           << " must return one scalar loss (a 0-d floating-point tensor)";
  for (unsigned i = 0, e = loss.getNumArguments(); i < e; ++i) {
    auto name =
        loss.getArgAttrOfType<StringAttr>(i, TfcDialect::kParamAttrName);
    if (!name) {
      lossOthers.push_back(i);
      continue;
    }
    lossParams.push_back(i);
    paramNames.push_back(name.str());
  }
  if (lossParams.empty())
    return fail() << " has no argument marked tfc.param: nothing to train";
  return success();
}

LogicalResult StepBuilder::signature(StepKind kind, Layout &layout) {
  Builder b(loss.getContext());
  auto f32 = RankedTensorType::get({}, b.getF32Type());
  auto i64 = RankedTensorType::get({}, b.getI64Type());
  auto named = [&](StringRef key, StringRef name) {
    return b.getDictionaryAttr(b.getNamedAttr(key, b.getStringAttr(name)));
  };
  SmallVector<Layout::Arg> &args = layout.args;
  bool optimizes = kind != StepKind::accumulate;
  auto addAccumulators = [&] {
    for (auto [index, name] : llvm::enumerate(paramNames)) {
      auto type = cast<RankedTensorType>(args[index].type);
      layout.accumulators.push_back(args.size());
      args.push_back({RankedTensorType::get(type.getShape(), b.getF32Type()),
                      named(TfcDialect::kStateAttrName, name + ".grad_accum")});
    }
  };

  // Params, then their optimizer state (or accumulators), scalar state, the
  // learning-rate inputs, then the batch (or the accumulators).
  for (auto [index, lossIndex] : llvm::enumerate(lossParams))
    args.push_back({loss.getArgumentTypes()[lossIndex],
                    named(TfcDialect::kParamAttrName, paramNames[index])});
  layout.numParams = lossParams.size();
  if (kind == StepKind::accumulate)
    addAccumulators();
  if (optimizes) {
    for (auto [index, name] : llvm::enumerate(paramNames)) {
      auto paramType = cast<RankedTensorType>(args[index].type);
      SmallVector<StateSpec> states = rule.stateOf(paramType);
      layout.firstState.push_back(args.size());
      layout.numStates.push_back(states.size());
      for (const StateSpec &state : states)
        args.push_back({state.type, named(TfcDialect::kStateAttrName,
                                          name + "." + state.suffix)});
    }
    layout.step = args.size();
    args.push_back({i64, named(TfcDialect::kStateAttrName, "step")});
  }
  if (options.lossScaling) {
    layout.scale = args.size();
    args.push_back({f32, named(TfcDialect::kStateAttrName, "loss_scale")});
    if (optimizes) {
      layout.tracker = args.size();
      args.push_back(
          {i64, named(TfcDialect::kStateAttrName, "growth_tracker")});
    }
  }
  if (optimizes)
    for (const ScheduleInput &input : scheduleInputs(options)) {
      layout.schedule.push_back(args.size());
      args.push_back({input.isInteger ? i64 : f32,
                      named(TfcDialect::kInputAttrName, input.name)});
    }
  if (kind == StepKind::apply)
    addAccumulators();
  if (kind != StepKind::apply) {
    layout.firstBatch = args.size();
    for (unsigned i : lossOthers) {
      DictionaryAttr attrs = loss.getArgAttrDict(i);
      if (!loss.getArgAttr(i, TfcDialect::kInputAttrName)) {
        NamedAttrList list(attrs);
        list.set(TfcDialect::kInputAttrName,
                 b.getStringAttr("arg" + std::to_string(i)));
        attrs = list.getDictionary(loss.getContext());
      }
      args.push_back({loss.getArgumentTypes()[i], attrs});
    }
  }

  // The runtime binds by name, across the entries of one program too: a
  // loss argument must not take a name the step gives to its own state or
  // inputs.
  llvm::StringSet<> names;
  for (const Layout::Arg &arg : args)
    for (StringRef key :
         {TfcDialect::kParamAttrName, TfcDialect::kInputAttrName,
          TfcDialect::kStateAttrName}) {
      auto name = arg.attrs ? arg.attrs.getAs<StringAttr>(key) : StringAttr();
      if (name && !names.insert(name.getValue()).second)
        return loss.emitError("--tfc-build-train-step: the name '")
               << name.getValue() << "' of an argument of @" << loss.getName()
               << " collides with a name of the arguments of @"
               << stepFunctionName(kind);
    }
  return success();
}

LogicalResult StepBuilder::build(StepKind kind) {
  Layout layout;
  if (failed(signature(kind, layout)))
    return failure();
  SmallVector<Type> argTypes = llvm::map_to_vector(
      layout.args, [](const Layout::Arg &arg) { return arg.type; });
  OpBuilder moduleBuilder(loss);
  moduleBuilder.setInsertionPointAfter(loss);
  auto func = moduleBuilder.create<func::FuncOp>(
      loss.getLoc(), stepFunctionName(kind),
      moduleBuilder.getFunctionType(argTypes, {}));
  for (auto [index, arg] : llvm::enumerate(layout.args))
    if (arg.attrs)
      func.setArgAttrs(index, arg.attrs);
  func.addEntryBlock();
  if (failed(buildBody(func, kind, layout))) {
    func.erase();
    return failure();
  }
  return success();
}

LogicalResult StepBuilder::buildBody(func::FuncOp func, StepKind kind,
                                     const Layout &layout) {
  Block *block = &func.front();
  OpBuilder builder = OpBuilder::atBlockEnd(block);
  Location loc = loss.getLoc();
  if (kind == StepKind::apply) {
    builder.create<func::ReturnOp>(loc);
  } else {
    IRMapping mapping;
    for (auto [index, lossIndex] : llvm::enumerate(lossParams))
      mapping.map(loss.getArgument(lossIndex), block->getArgument(index));
    for (auto [index, lossIndex] : llvm::enumerate(lossOthers))
      mapping.map(loss.getArgument(lossIndex),
                  block->getArgument(*layout.firstBatch + index));
    for (Operation &op : loss.front())
      builder.clone(op, mapping);
  }
  auto ret = cast<func::ReturnOp>(block->getTerminator());
  loc = ret.getLoc();
  builder.setInsertionPoint(ret);
  VjpBuilder v(builder, loc);
  Type f32 = builder.getF32Type();

  // Both functions of an accumulated step read the same scale: only
  // @apply_step changes it, as only GradScaler.update() does.
  Value scale;
  if (layout.scale)
    scale = LossScaler(options, builder, loc)
                .currentScale(func.getArgument(*layout.scale));

  Value plainLoss;
  SmallVector<Value> grads;
  if (kind == StepKind::apply) {
    for (unsigned arg : layout.accumulators)
      grads.push_back(func.getArgument(arg));
  } else {
    // What gets differentiated: scaler.scale(loss / k) in torch's recipe.
    plainLoss = ret.getOperand(0);
    Value seed = plainLoss;
    Type lossElement = lossType.getElementType();
    if (kind == StepKind::accumulate)
      seed =
          v.div(seed, v.scalar(lossElement, double(options.accumulateSteps)));
    if (scale)
      seed = v.mul(seed, v.convert(scale, lossElement));
    ret.setOperand(0, seed);
    SmallVector<unsigned> params =
        llvm::to_vector(llvm::seq<unsigned>(0, layout.numParams));
    if (failed(appendGradients(func, params)))
      return failure();
    builder.setInsertionPoint(ret);
    grads = llvm::to_vector(ret.getOperands().drop_front());
  }

  SmallVector<Value> results;
  SmallVector<DictionaryAttr> resultAttrs;
  auto addResult = [&](Value value, StringRef key, StringRef name) {
    results.push_back(value);
    resultAttrs.push_back(builder.getDictionaryAttr(
        builder.getNamedAttr(key, builder.getStringAttr(name))));
  };
  auto addUpdate = [&](unsigned arg, Value value) {
    StringAttr name;
    for (StringRef key :
         {TfcDialect::kParamAttrName, TfcDialect::kStateAttrName})
      if (!name)
        name = func.getArgAttrOfType<StringAttr>(arg, key);
    addResult(value, TfcDialect::kUpdateAttrName, name.getValue());
  };
  if (plainLoss)
    addResult(plainLoss, TfcDialect::kOutputAttrName, "loss");
  if (kind == StepKind::accumulate) {
    // Summed in f32 whatever the gradient type, as torch's .grad of an f32
    // master weight.
    for (auto [grad, arg] : llvm::zip(grads, layout.accumulators))
      addUpdate(arg, v.add(func.getArgument(arg), v.convert(grad, f32)));
  } else {
    Tail tail = buildOptimizerTail(builder, loc, func, layout, grads, scale);
    for (const Tail::Update &update : tail.updates)
      addUpdate(update.arg, update.value);
    // zero_grad() follows every step attempt, skipped or not.
    for (unsigned arg : layout.accumulators)
      addUpdate(arg, v.zeros(cast<RankedTensorType>(
                         func.getArgument(arg).getType())));
    if (tail.foundInf)
      addResult(tail.foundInf, TfcDialect::kOutputAttrName, "found_inf");
    if (tail.appliedLr)
      addResult(tail.appliedLr, TfcDialect::kOutputAttrName, kAppliedLrOutput);
  }
  ret->setOperands(results);
  func.setFunctionType(builder.getFunctionType(func.getArgumentTypes(),
                                               ValueRange(results).getTypes()));
  func.setAllResultAttrs(resultAttrs);
  return success();
}

StepBuilder::Tail
StepBuilder::buildOptimizerTail(OpBuilder &builder, Location loc,
                                func::FuncOp func, const Layout &layout,
                                SmallVector<Value> grads, Value scale) {
  VjpBuilder v(builder, loc);
  Type f32 = builder.getF32Type();
  LossScaler scaler(options, builder, loc);
  Tail tail;
  if (scale)
    tail.foundInf = scaler.unscaleAndCheck(grads, scale);

  if (options.maxGradNorm > 0) {
    // torch.nn.utils.clip_grad_norm_: one norm over all gradients.
    Value total = v.scalar(f32, 0.0);
    for (Value grad : grads) {
      Value g = v.convert(grad, f32);
      total = v.add(total, sumAll(builder, loc, v.mul(g, g)));
    }
    Value norm = builder.create<SqrtOp>(loc, total.getType(), total);
    Value coef = v.div(v.scalar(f32, options.maxGradNorm),
                       v.add(norm, v.scalar(f32, 1e-6)));
    Value clamped = builder.create<MinimumOp>(loc, coef.getType(), coef,
                                              v.scalar(f32, 1.0));
    for (Value &grad : grads)
      grad =
          v.mul(grad, v.convert(clamped, tensorTypeOf(grad).getElementType()));
  }

  // The schedule reads the count of steps taken so far; the optimizer gets
  // the count after this one, as torch's state['step'].
  Value oldStep = func.getArgument(*layout.step);
  Value newStep = v.add(oldStep, i64Scalar(builder, loc, 1));
  SmallVector<Value> scheduleArgs =
      llvm::map_to_vector(layout.schedule, [&](unsigned arg) -> Value {
        return func.getArgument(arg);
      });
  Value lr = buildLearningRate(builder, loc, options, scheduleArgs, oldStep);
  double baseDecay = options.weightDecay >= 0 ? options.weightDecay
                                              : rule.defaultWeightDecay();
  SmallVector<Tail::Update> stateUpdates;
  for (unsigned i = 0; i < layout.numParams; ++i) {
    ParamStep in;
    in.param = func.getArgument(i);
    in.grad = grads[i];
    for (unsigned s = 0; s < layout.numStates[i]; ++s)
      in.states.push_back(func.getArgument(layout.firstState[i] + s));
    in.lr = lr;
    in.step = newStep;
    // Parameter groups as GPT-2/nanoGPT and Hugging Face train them:
    // biases and norm weights (rank < 2) are not decayed unless decay-all.
    in.weightDecay = options.decayAll || tensorTypeOf(in.param).getRank() >= 2
                         ? baseDecay
                         : 0.0;
    ParamStepResult out = rule.emitStep(builder, loc, in);
    tail.updates.push_back({i, out.param});
    for (auto [s, value] : llvm::enumerate(out.states))
      stateUpdates.push_back({unsigned(layout.firstState[i] + s), value});
  }
  tail.updates.append(stateUpdates.begin(), stateUpdates.end());
  tail.updates.push_back({*layout.step, newStep});

  if (scale) {
    // A skipped step keeps every parameter and state, the count included.
    for (Tail::Update &update : tail.updates)
      update.value =
          v.select(tail.foundInf, func.getArgument(update.arg), update.value);
    auto [nextScale, nextTracker] =
        scaler.update(scale, func.getArgument(*layout.tracker), tail.foundInf);
    tail.updates.push_back({*layout.scale, nextScale});
    tail.updates.push_back({*layout.tracker, nextTracker});
  }
  if (layout.schedule.size() > 1)
    tail.appliedLr = lr;
  return tail;
}

SmallVector<std::string>
trainStepFunctions(const TfcBuildTrainStepPassOptions &options) {
  return llvm::map_to_vector(stepKinds(options), [](StepKind kind) {
    return stepFunctionName(kind).str();
  });
}

} // namespace tfc
