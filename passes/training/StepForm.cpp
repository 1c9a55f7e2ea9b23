//===- StepForm.cpp - the form the train-step stages hand on --------------===//

#include "passes/training/StepForm.h"

#include "passes/training/LearningRate.h"

#include "dialects/tfc/TfcDialect.h"

#include "llvm/ADT/BitVector.h"

using namespace mlir;
using namespace mlir::tfc;

namespace tfc {

namespace {

constexpr StepStage kStages[] = {StepStage::gradients, StepStage::accumulate,
                                 StepStage::lossScaling, StepStage::clip,
                                 StepStage::optimizer};

StringRef stageName(StepStage stage) {
  return stepStageFlag(stage).drop_front(strlen("--tfc-step-"));
}

std::optional<StepStage> parseStage(Attribute attr) {
  auto name = dyn_cast<StringAttr>(attr);
  for (StepStage stage : kStages)
    if (name && name.getValue() == stageName(stage))
      return stage;
  return std::nullopt;
}

/// Where an argument goes: parameters, accumulators, optimizer state, step,
/// scale, tracker, schedule inputs, batch.
unsigned argumentRank(func::FuncOp func, unsigned index) {
  auto name = [&](StringRef key) {
    auto attr = func.getArgAttrOfType<StringAttr>(index, key);
    return attr ? std::optional<StringRef>(attr.getValue()) : std::nullopt;
  };
  if (name(TfcDialect::kParamAttrName))
    return 0;
  if (std::optional<StringRef> state = name(TfcDialect::kStateAttrName)) {
    if (state->ends_with(kGradAccumSuffix))
      return 1;
    if (*state == kStepState)
      return 3;
    if (*state == kLossScaleState)
      return 4;
    if (*state == kGrowthTrackerState)
      return 5;
    return 2;
  }
  if (std::optional<StringRef> input = name(TfcDialect::kInputAttrName))
    if (isScheduleInputName(*input))
      return 6;
  return 7;
}

/// Where a result goes: the loss, gradients, updates (in the order of
/// their arguments), found_inf, applied_lr, anything else.
unsigned resultRank(func::FuncOp func, unsigned index) {
  auto name = [&](StringRef key) {
    auto attr = func.getResultAttrOfType<StringAttr>(index, key);
    return attr ? std::optional<StringRef>(attr.getValue()) : std::nullopt;
  };
  if (name(kGradAttrName))
    return 1;
  if (std::optional<StringRef> updated = name(TfcDialect::kUpdateAttrName)) {
    BlockArgument arg = findStepArgument(func, *updated);
    unsigned rank = arg ? argumentRank(func, arg.getArgNumber()) : 2;
    // Accumulators are reset after everything the step updates.
    return rank == 1 ? 8 : 2 + rank;
  }
  std::optional<StringRef> output = name(TfcDialect::kOutputAttrName);
  if (output == kLossOutput)
    return 0;
  if (output == kFoundInfOutput)
    return 9;
  if (output == StringRef(kAppliedLrOutput))
    return 10;
  return 11;
}

} // namespace

StringRef stepStageFlag(StepStage stage) {
  switch (stage) {
  case StepStage::gradients:
    return "--tfc-step-gradients";
  case StepStage::accumulate:
    return "--tfc-step-accumulate";
  case StepStage::lossScaling:
    return "--tfc-step-loss-scaling";
  case StepStage::clip:
    return "--tfc-step-clip";
  case StepStage::optimizer:
    return "--tfc-step-optimizer";
  }
  llvm_unreachable("unknown stage");
}

void recordFirstStage(func::FuncOp func, StepStage stage) {
  Builder b(func.getContext());
  func->setAttr(kStepStagesAttrName,
                b.getStrArrayAttr({stageName(stage)}));
}

FailureOr<SmallVector<func::FuncOp>>
enterStage(ModuleOp module, StepStage stage, bool needGradients) {
  SmallVector<func::FuncOp> found;
  for (auto func : module.getOps<func::FuncOp>()) {
    auto stages = func->getAttrOfType<ArrayAttr>(kStepStagesAttrName);
    if (!stages)
      continue;
    for (Attribute attr : stages) {
      std::optional<StepStage> done = parseStage(attr);
      if (!done)
        return func.emitError(stepStageFlag(stage))
               << ": @" << func.getName() << " records an unknown stage "
               << attr << " in " << kStepStagesAttrName;
      if (*done >= stage)
        return func.emitError(stepStageFlag(stage))
               << ": @" << func.getName() << " already went through "
               << stepStageFlag(*done)
               << " (the stages run in the order gradients, accumulate, "
                  "loss-scaling, clip, optimizer, each at most once)";
    }
    if (needGradients && stepGradients(func).empty())
      continue;
    found.push_back(func);
  }
  if (found.empty())
    return module.emitError(stepStageFlag(stage))
           << ": no step function "
           << (needGradients ? "returning gradients " : "")
           << "to work on (--tfc-step-gradients builds one from a loss; "
              "--tfc-step-optimizer completes it)";
  for (func::FuncOp func : found) {
    SmallVector<Attribute> stages(
        func->getAttrOfType<ArrayAttr>(kStepStagesAttrName).getValue());
    stages.push_back(StringAttr::get(func.getContext(), stageName(stage)));
    func->setAttr(kStepStagesAttrName,
                  ArrayAttr::get(func.getContext(), stages));
  }
  return found;
}

void finishStepFunctions(ModuleOp module) {
  for (auto func : module.getOps<func::FuncOp>()) {
    if (!func->removeAttr(kStepStagesAttrName))
      continue;
    func.walk([](Operation *op) { op->removeAttr(kLossSeedAttrName); });
  }
}

Value lossSeed(func::FuncOp func) {
  for (Operation &op : func.front())
    if (op.hasAttr(kLossSeedAttrName))
      return op.getResult(0);
  return Value();
}

void scaleLossSeed(func::FuncOp func,
                   function_ref<Value(OpBuilder &, Value)> factor) {
  Value seed = lossSeed(func);
  if (!seed)
    return;
  // Right before the first reader, so after anything the caller built
  // after the seed for the factor to read.
  Operation *first = nullptr;
  for (Operation *user : seed.getUsers())
    if (!first || user->isBeforeInBlock(first))
      first = user;
  OpBuilder builder(func.getContext());
  if (first)
    builder.setInsertionPoint(first);
  else
    builder.setInsertionPointAfterValue(seed);
  Value scaled = factor(builder, seed);
  seed.replaceAllUsesExcept(scaled, scaled.getDefiningOp());
}

StringRef stepArgumentName(func::FuncOp func, unsigned index) {
  for (StringRef key : {TfcDialect::kParamAttrName, TfcDialect::kStateAttrName,
                        TfcDialect::kInputAttrName})
    if (auto name = func.getArgAttrOfType<StringAttr>(index, key))
      return name.getValue();
  return "";
}

BlockArgument findStepArgument(func::FuncOp func, StringRef name) {
  for (unsigned i = 0, e = func.getNumArguments(); i < e; ++i)
    if (stepArgumentName(func, i) == name)
      return func.getArgument(i);
  return BlockArgument();
}

FailureOr<BlockArgument> addStepArgument(func::FuncOp func, StepStage stage,
                                         Type type, StringRef key,
                                         StringRef name) {
  if (findStepArgument(func, name))
    return func.emitError(stepStageFlag(stage))
           << ": @" << func.getName() << " already has an argument named '"
           << name << "', a name the stage gives to an argument of its own "
           << "(rename the loss's argument: the runtime binds by name)";
  Builder b(func.getContext());
  func.insertArgument(0, type,
                      b.getDictionaryAttr(
                          b.getNamedAttr(key, b.getStringAttr(name))),
                      func.getLoc());
  // Inserted first, then moved to its place: its rank needs its name.
  unsigned rank = argumentRank(func, 0);
  unsigned index = 1;
  while (index < func.getNumArguments() && argumentRank(func, index) <= rank)
    ++index;
  if (index == 1)
    return func.getArgument(0);
  func.insertArgument(index, type, func.getArgAttrDict(0), func.getLoc());
  func.getArgument(0).replaceAllUsesWith(func.getArgument(index));
  func.eraseArgument(0);
  return func.getArgument(index - 1);
}

void addStepResult(func::FuncOp func, Value value, StringRef key,
                   StringRef name) {
  Builder b(func.getContext());
  auto attrs =
      b.getDictionaryAttr(b.getNamedAttr(key, b.getStringAttr(name)));
  // As for arguments: appended, ranked, then placed.
  unsigned last = func.getNumResults();
  func.insertResult(last, value.getType(), attrs);
  unsigned rank = resultRank(func, last);
  unsigned index = 0;
  while (index < last && resultRank(func, index) <= rank)
    ++index;
  func.eraseResult(last);
  func.insertResult(index, value.getType(), attrs);
  stepReturn(func)->insertOperands(index, value);
}

std::optional<unsigned> findStepResult(func::FuncOp func, StringRef key,
                                       StringRef name) {
  for (unsigned i = 0, e = func.getNumResults(); i < e; ++i)
    if (auto attr = func.getResultAttrOfType<StringAttr>(i, key);
        attr && attr.getValue() == name)
      return i;
  return std::nullopt;
}

SmallVector<StepGradient> stepGradients(func::FuncOp func) {
  SmallVector<StepGradient> grads;
  if (func.isExternal())
    return grads;
  func::ReturnOp ret = stepReturn(func);
  for (unsigned i = 0, e = func.getNumResults(); i < e; ++i)
    if (auto name = func.getResultAttrOfType<StringAttr>(i, kGradAttrName))
      grads.push_back(
          {i, findStepArgument(func, name.getValue()), ret.getOperand(i)});
  return grads;
}

void setInsertionPointAfterGradients(OpBuilder &builder, func::FuncOp func) {
  SmallVector<Value> values;
  for (const StepGradient &grad : stepGradients(func))
    values.push_back(grad.value);
  if (std::optional<unsigned> index = findStepResult(
          func, TfcDialect::kOutputAttrName, kFoundInfOutput))
    values.push_back(stepReturn(func).getOperand(*index));
  Operation *last = nullptr;
  for (Value value : values)
    if (Operation *def = value.getDefiningOp())
      if (def->getBlock() == &func.front() &&
          (!last || last->isBeforeInBlock(def)))
        last = def;
  if (last)
    builder.setInsertionPointAfter(last);
  else
    builder.setInsertionPointToStart(&func.front());
}

void setStepResult(func::FuncOp func, unsigned index, Value value) {
  stepReturn(func).setOperand(index, value);
  if (func.getResultTypes()[index] == value.getType())
    return;
  SmallVector<Type> types(func.getResultTypes());
  types[index] = value.getType();
  func.setFunctionType(
      FunctionType::get(func.getContext(), func.getArgumentTypes(), types));
}

void eraseStepResults(func::FuncOp func, const llvm::BitVector &indices) {
  func::ReturnOp ret = stepReturn(func);
  func.eraseResults(indices);
  for (int i = int(indices.size()) - 1; i >= 0; --i)
    if (indices.test(i))
      ret->eraseOperand(i);
}

func::ReturnOp stepReturn(func::FuncOp func) {
  return cast<func::ReturnOp>(func.front().getTerminator());
}

} // namespace tfc
