//===- ProgramOrder.h - op order kept up to date by the fuser ---*- C++ -*-===//
//
// Where each op of a function body sits, as a number, for the fusion pass's
// ordering queries (which reader comes first, which member is last).
//
// MLIR's own Operation::isBeforeInBlock numbers a block lazily and
// renumbers all of it whenever an edit leaves no gap between two numbers
// (its stride is 5). Every merge inserts a kernel and moves the ops that
// depend on it, so each merge cost a walk of the whole block on the next
// query: quadratic in the length of a training step (a recurrence unrolled
// over 256 steps spent 80% of its compile time there). Here the numbers
// have a wide stride and a merge renumbers only the ops it placed, in the
// gap it placed them in; the block is renumbered only when that gap is
// used up, which needs some forty merges at the same spot.
//
//===----------------------------------------------------------------------===//

#ifndef TFC_PASSES_FUSION_PROGRAMORDER_H
#define TFC_PASSES_FUSION_PROGRAMORDER_H

#include "mlir/IR/Block.h"
#include "mlir/IR/Operation.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/DenseMap.h"

#include <cstdint>

namespace tfc::fusion {

class ProgramOrder {
public:
  /// Whether `a` comes before `b`; both are ops of one block.
  bool isBefore(mlir::Operation *a, mlir::Operation *b);

  /// Records that `ops`, in this order, now sit right before `anchor` in its
  /// block (created or moved there), and nowhere else.
  void placedBefore(llvm::ArrayRef<mlir::Operation *> ops,
                    mlir::Operation *anchor);

  /// Forgets `op`, which is about to be erased (its address may be reused).
  void erased(mlir::Operation *op) { positions.erase(op); }

private:
  /// The number of `op`; numbers its block first if it has none.
  uint64_t positionOf(mlir::Operation *op);
  void renumber(mlir::Block *block);

  static constexpr uint64_t kStride = uint64_t(1) << 40;
  llvm::DenseMap<mlir::Operation *, uint64_t> positions;
};

} // namespace tfc::fusion

#endif // TFC_PASSES_FUSION_PROGRAMORDER_H
