//===- OptimizerInBackward.cpp - --tfc-optimizer-in-backward --------------===//
//
// Only moves ops: every op keeps its operands, so the values are those of
// the unmoved step; what changes is how long the arena keeps each gradient.
//
//===----------------------------------------------------------------------===//

#include "passes/training/Passes.h"

#include "dialects/tfc/TfcOps.h"
#include "dialects/tfc/TfcOptimizerUpdates.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/DenseSet.h"

namespace tfc {
#define GEN_PASS_DEF_TFCOPTIMIZERINBACKWARDPASS
#include "passes/training/Passes.h.inc"
} // namespace tfc

using namespace mlir;
using namespace mlir::tfc;

namespace {

constexpr llvm::StringLiteral kPassFlag = "--tfc-optimizer-in-backward";

bool isScalar(Value v) {
  auto type = dyn_cast<RankedTensorType>(v.getType());
  return type && type.getRank() == 0;
}

/// The later of `a` and `b` in their block (either may be null).
Operation *later(Operation *a, Operation *b) {
  if (!a)
    return b;
  if (!b)
    return a;
  return a->isBeforeInBlock(b) ? b : a;
}

/// The last op in `block` that `op` must follow: the producers of its
/// operands, and the readers of the old value of every operand it writes
/// in place (`inPlace`), but `op` itself, `ignore` and the block's
/// terminator (a step returning the old value itself, a loss that is a
/// parameter, keeps it: the update cannot be in place, and stays before
/// the return).
Operation *mustFollow(Operation *op, ArrayRef<Value> inPlace,
                      const DenseSet<Operation *> &ignore) {
  Operation *last = nullptr;
  for (Value operand : op->getOperands())
    if (Operation *def = operand.getDefiningOp())
      last = later(last, def);
  for (Value old : inPlace)
    for (Operation *user : old.getUsers())
      if (user != op && !ignore.contains(user) &&
          user->getBlock() == op->getBlock() &&
          !user->hasTrait<OpTrait::IsTerminator>())
        last = later(last, user);
  return last;
}

struct TfcOptimizerInBackwardPass
    : public ::tfc::impl::TfcOptimizerInBackwardPassBase<
          TfcOptimizerInBackwardPass> {
  using TfcOptimizerInBackwardPassBase::TfcOptimizerInBackwardPassBase;

  void runOnOperation() override {
    auto func = getOperation().lookupSymbol<func::FuncOp>("train_step");
    if (!func) {
      getOperation().emitError(kPassFlag)
          << ": no @train_step (build it with --tfc-build-train-step, "
             "without accumulate-steps)";
      return signalPassFailure();
    }
    Block &body = func.getBody().front();
    SmallVector<Operation *> updates;
    for (Operation &op : body)
      if (isOptimizerUpdate(&op))
        updates.push_back(&op);
    if (updates.empty()) {
      func.emitError(kPassFlag)
          << ": no tfc.adamw/adam/sgd/adamw8bit update to move (adafactor's "
             "update is plain ops over the gradients)";
      return signalPassFailure();
    }

    // The per-step scalars (step + 1, the schedule's rate) depend on
    // arguments alone: compute them first.
    DenseSet<Value> early(func.getArguments().begin(),
                          func.getArguments().end());
    Operation *top = &body.front();
    for (Operation &op : llvm::make_early_inc_range(body)) {
      if (op.hasTrait<OpTrait::IsTerminator>() || op.getNumRegions() ||
          !isPure(&op) || op.getNumResults() == 0 ||
          !llvm::all_of(op.getResults(), isScalar) ||
          !llvm::all_of(op.getOperands(),
                        [&](Value v) { return early.contains(v); }))
        continue;
      if (&op != top)
        op.moveBefore(top);
      else
        top = op.getNextNode();
      for (Value r : op.getResults())
        early.insert(r);
    }

    // Each update right after what it must follow, in program order of
    // those points; then each weight copy of a new parameter.
    DenseSet<Operation *> none;
    for (Operation *update : updates) {
      SmallVector<Value> inPlace;
      for (Value operand : update->getOperands())
        if (auto arg = dyn_cast<BlockArgument>(operand);
            arg && (func.getArgAttr(arg.getArgNumber(),
                                    TfcDialect::kParamAttrName) ||
                    func.getArgAttr(arg.getArgNumber(),
                                    TfcDialect::kStateAttrName)))
          inPlace.push_back(operand);
      if (Operation *after = mustFollow(update, inPlace, none))
        update->moveAfter(after);
    }
    moveWeightCopies(func);
    func->setAttr(TfcDialect::kOptimizerInBackwardAttrName,
                  UnitAttr::get(&getContext()));
  }

  /// A result of the function that updates a `tfc.state` copy of a
  /// parameter from the parameter's new value (convert/pad chains) moves to
  /// right after its inputs and the last reader of the old copy.
  void moveWeightCopies(func::FuncOp func) {
    auto ret = cast<func::ReturnOp>(func.getBody().front().getTerminator());
    DenseMap<StringRef, Value> stateArgs;
    for (BlockArgument arg : func.getArguments())
      if (auto name = func.getArgAttrOfType<StringAttr>(
              arg.getArgNumber(), TfcDialect::kStateAttrName))
        stateArgs[name.getValue()] = arg;
    for (unsigned i = 0; i < func.getNumResults(); ++i) {
      auto name =
          func.getResultAttrOfType<StringAttr>(i, TfcDialect::kUpdateAttrName);
      if (!name || !stateArgs.count(name.getValue()))
        continue;
      // The chain computing it, innermost first.
      SmallVector<Operation *> chain;
      for (Value v = ret.getOperand(i);;) {
        Operation *def = v.getDefiningOp();
        if (!def || !isa<ConvertOp, PadOp>(def) || !def->hasOneUse())
          break;
        chain.push_back(def);
        v = def->getOperand(0);
      }
      if (chain.empty() || !chain.back()->getOperand(0).getDefiningOp() ||
          !isOptimizerUpdate(chain.back()->getOperand(0).getDefiningOp()))
        continue;
      Value old = stateArgs.lookup(name.getValue());
      DenseSet<Operation *> none;
      for (Operation *op : llvm::reverse(chain)) {
        Operation *after = mustFollow(op, {}, none);
        for (Operation *user : old.getUsers())
          if (user != ret && user->getBlock() == op->getBlock())
            after = later(after, user);
        if (after)
          op->moveAfter(after);
      }
    }
  }
};

} // namespace
