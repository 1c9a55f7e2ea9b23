//===- StepGradients.cpp - --tfc-step-gradients ---------------------------===//
//
// Stage 1: @train_step = the loss's forward and backward, returning the loss
// and one gradient per parameter, its backward started from a marked seed
// (StepForm.h).
//
//===----------------------------------------------------------------------===//

#include "passes/training/StepForm.h"
#include "passes/training/StepStages.h"

#include "passes/autodiff/ReverseMode.h"

#include "dialects/tfc/TfcOps.h"

#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/BitVector.h"
#include "llvm/ADT/StringSet.h"

namespace tfc {
#define GEN_PASS_DEF_TFCSTEPGRADIENTSPASS
#include "passes/training/Passes.h.inc"
} // namespace tfc

using namespace mlir;
using namespace mlir::tfc;

namespace {

struct TfcStepGradientsPass
    : public ::tfc::impl::TfcStepGradientsPassBase<TfcStepGradientsPass> {
  using TfcStepGradientsPassBase::TfcStepGradientsPassBase;

  void runOnOperation() override {
    TFC_STEP_OPTIONS_OF_PASS(TFC_STEP_GRADIENTS_OPTIONS, options)
    if (failed(::tfc::runStepGradients(getOperation(), options)))
      signalPassFailure();
  }
};

/// Checks the loss: one block returning one 0-d float, a tfc.param.
LogicalResult checkLoss(func::FuncOp loss) {
  auto fail = [&]() {
    return loss.emitError(::tfc::stepStageFlag(::tfc::StepStage::gradients))
           << ": @" << loss.getName();
  };
  if (loss.isExternal() || !loss.getBody().hasOneBlock())
    return fail() << " must have a body of exactly one block";
  if (!::tfc::returnsLossAndUpdates(loss))
    return fail() << " must return " << ::tfc::kLossResultsRule;
  for (unsigned i = 0, e = loss.getNumArguments(); i < e; ++i)
    if (loss.getArgAttr(i, TfcDialect::kParamAttrName))
      return success();
  return fail() << " has no argument marked tfc.param: nothing to train";
}

} // namespace

namespace tfc {

LogicalResult runStepGradients(ModuleOp module,
                               const TfcBuildTrainStepPassOptions &options) {
  StringRef flag = stepStageFlag(StepStage::gradients);
  auto loss = module.lookupSymbol<func::FuncOp>(options.function);
  if (!loss)
    return module.emitError(flag)
           << ": no func.func @" << options.function
           << " to train (choose one with function=<name>)";
  if (failed(checkLoss(loss)))
    return failure();
  if (module.lookupSymbol("train_step"))
    return loss.emitError(flag) << ": the module already has a symbol "
                                   "@train_step";

  // The parameters first, then model state (buffers the forward updates,
  // kept with the other state), then the other arguments (the batch), each
  // named for the runtime.
  Builder b(loss.getContext());
  SmallVector<unsigned> order;
  for (unsigned i = 0, e = loss.getNumArguments(); i < e; ++i)
    if (loss.getArgAttr(i, TfcDialect::kParamAttrName))
      order.push_back(i);
  unsigned numParams = order.size();
  for (unsigned i = 0, e = loss.getNumArguments(); i < e; ++i)
    if (loss.getArgAttr(i, TfcDialect::kStateAttrName) &&
        !loss.getArgAttr(i, TfcDialect::kParamAttrName))
      order.push_back(i);
  for (unsigned i = 0, e = loss.getNumArguments(); i < e; ++i)
    if (!loss.getArgAttr(i, TfcDialect::kParamAttrName) &&
        !loss.getArgAttr(i, TfcDialect::kStateAttrName))
      order.push_back(i);
  SmallVector<Attribute> updates = stateUpdates(loss);
  SmallVector<Type> types;
  SmallVector<DictionaryAttr> attrs;
  for (unsigned i : order) {
    types.push_back(loss.getArgumentTypes()[i]);
    NamedAttrList list(loss.getArgAttrDict(i));
    if (!list.get(TfcDialect::kParamAttrName) &&
        !list.get(TfcDialect::kInputAttrName) &&
        !list.get(TfcDialect::kStateAttrName))
      list.set(TfcDialect::kInputAttrName,
               b.getStringAttr("arg" + std::to_string(i)));
    attrs.push_back(list.getDictionary(loss.getContext()));
  }
  // The runtime binds by name.
  llvm::StringSet<> names;
  for (DictionaryAttr dict : attrs)
    for (StringRef key :
         {TfcDialect::kParamAttrName, TfcDialect::kInputAttrName,
          TfcDialect::kStateAttrName})
      if (auto name = dict.getAs<StringAttr>(key);
          name && !names.insert(name.getValue()).second)
        return loss.emitError(flag)
               << ": two arguments of @" << loss.getName()
               << " are named '" << name.getValue()
               << "' (the runtime binds them by name)";

  OpBuilder moduleBuilder(loss);
  moduleBuilder.setInsertionPointAfter(loss);
  auto func = moduleBuilder.create<func::FuncOp>(
      loss.getLoc(), "train_step", b.getFunctionType(types, {}));
  func.setAllArgAttrs(attrs);
  Block *block = func.addEntryBlock();
  IRMapping mapping;
  for (auto [index, lossIndex] : llvm::enumerate(order))
    mapping.map(loss.getArgument(lossIndex), block->getArgument(index));
  OpBuilder builder = OpBuilder::atBlockEnd(block);
  for (Operation &op : loss.front())
    builder.clone(op, mapping);

  SmallVector<unsigned> params =
      llvm::to_vector(llvm::seq<unsigned>(0, numParams));
  SmallVector<unsigned> withoutGradient;
  if (failed(appendGradients(func, params, kLossSeedAttrName,
                             &withoutGradient))) {
    func.erase();
    return failure();
  }
  // The loss and the gradients named, in one change of the result
  // attributes (one per result would cost their number squared).
  SmallVector<DictionaryAttr> resultAttrs;
  for (unsigned i = 0, e = func.getNumResults(); i < e; ++i) {
    NamedAttrList list(func.getResultAttrDict(i));
    if (i == 0)
      list.set(TfcDialect::kOutputAttrName, b.getStringAttr(kLossOutput));
    else if (i <= numParams)
      list.set(kGradAttrName,
               func.getArgAttr(i - 1, TfcDialect::kParamAttrName));
    resultAttrs.push_back(list.getDictionary(func.getContext()));
  }
  func.setAllResultAttrs(resultAttrs);
  // The state updates follow the gradients (StepForm.h's order: updates of
  // state after the gradients); every call of the step writes them, as
  // every forward of torch's module does.
  setStateUpdates(func, 1 + numParams, updates);
  // A parameter no gradient reaches (unused, or read only under no_grad)
  // returns no gradient, so no later stage touches it: torch's optimizers,
  // clip_grad_norm_ and GradScaler skip a parameter whose .grad is None
  // (no weight decay, no momentum); it stays a tfc.param, never updated.
  llvm::BitVector dropped(func.getNumResults());
  for (unsigned index : withoutGradient)
    dropped.set(index + 1);
  if (dropped.count() == numParams)
    return loss.emitError(flag)
           << ": no gradient reaches any tfc.param argument of @"
           << loss.getName() << " (the loss does not depend on them)";
  eraseStepResults(func, dropped);
  recordFirstStage(func, StepStage::gradients);
  return success();
}

} // namespace tfc
