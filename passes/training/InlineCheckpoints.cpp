//===- InlineCheckpoints.cpp - --tfc-inline-checkpoints -------------------===//
//
// tfc.checkpoint is how a user marks a block for recompute=blocks (as
// torch.utils.checkpoint wraps a module). The passes work on plain ops, so
// the pipelines dissolve the regions first and keep only what recompute
// needs: which block each parameter belongs to. Parameters, unlike ops,
// keep their identity (their tfc.param names) through precision, padding,
// autodiff, decomposition and CSE, so a block is recorded by the
// parameters its checkpoint takes; --tfc-recompute assigns each op to a
// block from the parameters it reads, as it does with the layer numbers of
// parameter names.
//
//===----------------------------------------------------------------------===//

#include "passes/training/Passes.h"

#include "dialects/tfc/TfcOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/MapVector.h"

namespace tfc {
#define GEN_PASS_DEF_TFCINLINECHECKPOINTSPASS
#include "passes/training/Passes.h.inc"
} // namespace tfc

using namespace mlir;
using namespace mlir::tfc;

namespace {

/// A parameter in no single block: read by several or also outside.
constexpr int64_t kNoBlock = -1;

struct TfcInlineCheckpointsPass
    : public ::tfc::impl::TfcInlineCheckpointsPassBase<
          TfcInlineCheckpointsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    llvm::MapVector<StringAttr, int64_t> blockOf;
    bool any = false;
    for (auto func : module.getOps<func::FuncOp>()) {
      SmallVector<CheckpointOp> checkpoints;
      func.walk([&](CheckpointOp op) { checkpoints.push_back(op); });
      if (checkpoints.empty())
        continue;
      any = true;
      recordBlocks(func, checkpoints, blockOf);
      for (CheckpointOp op : checkpoints)
        inlineCheckpoint(op);
    }
    if (!any)
      return;
    Builder b(module.getContext());
    SmallVector<NamedAttribute> entries;
    for (auto [name, block] : blockOf)
      entries.push_back(b.getNamedAttr(name, b.getI64IntegerAttr(block)));
    module->setAttr(TfcDialect::kCheckpointBlocksAttrName,
                    b.getDictionaryAttr(entries));
  }

  /// Block k is the k-th checkpoint of `func`; each tfc.param argument it
  /// takes joins it, unless another block or an op outside every block
  /// reads it too.
  static void recordBlocks(func::FuncOp func, ArrayRef<CheckpointOp> blocks,
                           llvm::MapVector<StringAttr, int64_t> &blockOf) {
    DenseMap<Operation *, int64_t> indexOf;
    for (auto [index, op] : llvm::enumerate(blocks))
      indexOf[op] = index;
    for (BlockArgument arg : func.getArguments()) {
      auto name = func.getArgAttrOfType<StringAttr>(arg.getArgNumber(),
                                                    TfcDialect::kParamAttrName);
      if (!name)
        continue;
      std::optional<int64_t> block;
      bool outside = false;
      for (Operation *user : arg.getUsers()) {
        auto it = indexOf.find(user);
        if (it == indexOf.end() || (block && *block != it->second)) {
          outside = true;
          break;
        }
        block = it->second;
      }
      if (!block && !outside)
        continue; // unused
      int64_t index = outside ? kNoBlock : *block;
      auto [it, inserted] = blockOf.insert({name, index});
      // The same name in another function's different block: no block.
      if (!inserted && it->second != index)
        it->second = kNoBlock;
    }
  }

  /// Moves the body before `op`, its arguments replaced by the inputs and
  /// `op`'s results by the yielded values.
  static void inlineCheckpoint(CheckpointOp op) {
    Block &body = op.getBodyBlock();
    YieldOp yield = op.getYield();
    for (auto [argument, input] :
         llvm::zip(body.getArguments(), op.getInputs()))
      argument.replaceAllUsesWith(input);
    op.replaceAllUsesWith(yield.getValues());
    yield.erase();
    op->getBlock()->getOperations().splice(Block::iterator(op),
                                           body.getOperations());
    op.erase();
  }
};

} // namespace
