//===- StepForm.cpp - the form the train-step stages hand on --------------===//

#include "passes/training/StepForm.h"

#include "passes/training/LearningRate.h"

#include "dialects/tfc/TfcDialect.h"

#include "llvm/ADT/BitVector.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"

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

/// Where an argument with attributes `attrs` goes: parameters,
/// accumulators, optimizer state, step, scale, tracker, schedule inputs,
/// batch.
unsigned argumentRank(DictionaryAttr attrs) {
  auto name = [&](StringRef key) {
    auto attr = attrs ? attrs.getAs<StringAttr>(key) : StringAttr();
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

/// The first argument of each name (stepArgumentName), the one
/// findStepArgument finds: looked up once, not once per result ranked.
using ArgumentsByName = llvm::DenseMap<StringRef, BlockArgument>;

ArgumentsByName stepArgumentsByName(func::FuncOp func) {
  ArgumentsByName byName;
  for (unsigned i = 0, e = func.getNumArguments(); i < e; ++i)
    byName.try_emplace(stepArgumentName(func, i), func.getArgument(i));
  return byName;
}

/// Where a result with attributes `attrs` goes: the loss, gradients,
/// updates (in the order of their arguments), found_inf, applied_lr,
/// anything else.
unsigned resultRank(func::FuncOp func, DictionaryAttr attrs,
                    const ArgumentsByName &arguments) {
  auto name = [&](StringRef key) {
    auto attr = attrs ? attrs.getAs<StringAttr>(key) : StringAttr();
    return attr ? std::optional<StringRef>(attr.getValue()) : std::nullopt;
  };
  if (name(kGradAttrName))
    return 1;
  if (std::optional<StringRef> updated = name(TfcDialect::kUpdateAttrName)) {
    auto arg = arguments.find(*updated);
    unsigned rank = arg != arguments.end()
                        ? argumentRank(func.getArgAttrDict(
                              arg->second.getArgNumber()))
                        : 2;
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

/// Where entries of ranks `added` go among entries of ranks `existing`
/// when added one after the other, each before the first entry of a
/// higher rank: the order of the result, as indices into `existing`
/// (>= 0) and `added` (-1 - i for added[i]).
SmallVector<int64_t> placeByRank(ArrayRef<unsigned> existing,
                                 ArrayRef<unsigned> added) {
  SmallVector<std::pair<unsigned, int64_t>> order;
  order.reserve(existing.size() + added.size());
  for (auto [i, rank] : llvm::enumerate(existing))
    order.push_back({rank, int64_t(i)});
  for (auto [i, rank] : llvm::enumerate(added)) {
    auto pos = llvm::find_if(order, [rank = rank](const auto &entry) {
      return entry.first > rank;
    });
    order.insert(pos, {rank, -1 - int64_t(i)});
  }
  SmallVector<int64_t> placed;
  placed.reserve(order.size());
  for (const auto &entry : order)
    placed.push_back(entry.second);
  return placed;
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
  FailureOr<SmallVector<BlockArgument>> added =
      addStepArguments(func, stage, {NewStepArgument{type, key, name.str()}});
  if (failed(added))
    return failure();
  return added->front();
}

FailureOr<SmallVector<BlockArgument>>
addStepArguments(func::FuncOp func, StepStage stage,
                 ArrayRef<NewStepArgument> added) {
  // The names taken, by the arguments there and those added before.
  llvm::DenseSet<StringRef> taken;
  for (auto &entry : stepArgumentsByName(func))
    taken.insert(entry.first);
  Builder b(func.getContext());
  SmallVector<DictionaryAttr> attrs;
  SmallVector<unsigned> addedRanks;
  for (const NewStepArgument &arg : added) {
    if (taken.contains(arg.name))
      return func.emitError(stepStageFlag(stage))
             << ": @" << func.getName() << " already has an argument named '"
             << arg.name
             << "', a name the stage gives to an argument of its own "
             << "(rename the loss's argument: the runtime binds by name)";
    attrs.push_back(b.getDictionaryAttr(
        b.getNamedAttr(arg.key, b.getStringAttr(arg.name))));
    addedRanks.push_back(argumentRank(attrs.back()));
    // The name stepArgumentName will give it.
    taken.insert(llvm::is_contained({TfcDialect::kParamAttrName,
                                     TfcDialect::kStateAttrName,
                                     TfcDialect::kInputAttrName},
                                    arg.key)
                     ? attrs.back().getAs<StringAttr>(arg.key).getValue()
                     : StringRef());
  }
  SmallVector<unsigned> ranks;
  for (unsigned i = 0, e = func.getNumArguments(); i < e; ++i)
    ranks.push_back(argumentRank(func.getArgAttrDict(i)));
  // All inserted at once: one new function type, not one per argument.
  SmallVector<int64_t> placed = placeByRank(ranks, addedRanks);
  SmallVector<unsigned> indices, positions(added.size());
  SmallVector<Type> types;
  SmallVector<DictionaryAttr> insertedAttrs;
  unsigned before = 0;
  for (auto [position, entry] : llvm::enumerate(placed)) {
    if (entry >= 0) {
      ++before;
      continue;
    }
    size_t i = size_t(-1 - entry);
    indices.push_back(before);
    types.push_back(added[i].type);
    insertedAttrs.push_back(attrs[i]);
    positions[i] = position;
  }
  SmallVector<Location> locs(indices.size(), func.getLoc());
  func.insertArguments(indices, types, insertedAttrs, locs);
  SmallVector<BlockArgument> result;
  for (unsigned position : positions)
    result.push_back(func.getArgument(position));
  return result;
}

void addStepResult(func::FuncOp func, Value value, StringRef key,
                   StringRef name) {
  addStepResults(func, {NewStepResult{value, key, name.str()}});
}

void addStepResults(func::FuncOp func, ArrayRef<NewStepResult> added) {
  if (added.empty())
    return;
  Builder b(func.getContext());
  ArgumentsByName arguments = stepArgumentsByName(func);
  SmallVector<DictionaryAttr> attrs;
  SmallVector<unsigned> addedRanks, ranks;
  for (const NewStepResult &result : added) {
    attrs.push_back(b.getDictionaryAttr(
        b.getNamedAttr(result.key, b.getStringAttr(result.name))));
    addedRanks.push_back(resultRank(func, attrs.back(), arguments));
  }
  for (unsigned i = 0, e = func.getNumResults(); i < e; ++i)
    ranks.push_back(resultRank(func, func.getResultAttrDict(i), arguments));
  // As for arguments: each before the first result ranked after it, all
  // inserted at once.
  SmallVector<int64_t> placed = placeByRank(ranks, addedRanks);
  func::ReturnOp ret = stepReturn(func);
  SmallVector<Value> operands;
  SmallVector<unsigned> indices;
  SmallVector<Type> types;
  SmallVector<DictionaryAttr> insertedAttrs;
  unsigned before = 0;
  for (int64_t entry : placed) {
    if (entry >= 0) {
      operands.push_back(ret.getOperand(entry));
      ++before;
      continue;
    }
    size_t i = size_t(-1 - entry);
    operands.push_back(added[i].value);
    indices.push_back(before);
    types.push_back(added[i].value.getType());
    insertedAttrs.push_back(attrs[i]);
  }
  func.insertResults(indices, types, insertedAttrs);
  ret->setOperands(operands);
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
  std::optional<ArgumentsByName> arguments;
  for (unsigned i = 0, e = func.getNumResults(); i < e; ++i)
    if (auto name = func.getResultAttrOfType<StringAttr>(i, kGradAttrName)) {
      if (!arguments)
        arguments = stepArgumentsByName(func);
      grads.push_back({i, arguments->lookup(name.getValue()),
                       ret.getOperand(i)});
    }
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
  // At once: one at a time shifts the operands after each.
  llvm::BitVector operands(indices);
  operands.resize(ret->getNumOperands());
  ret->eraseOperands(operands);
}

func::ReturnOp stepReturn(func::FuncOp func) {
  return cast<func::ReturnOp>(func.front().getTerminator());
}

} // namespace tfc
