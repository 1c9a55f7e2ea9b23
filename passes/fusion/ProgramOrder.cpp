//===- ProgramOrder.cpp - op order kept up to date by the fuser -----------===//

#include "passes/fusion/ProgramOrder.h"

#include <algorithm>
#include <cassert>
#include <limits>

using namespace mlir;

namespace tfc::fusion {

bool ProgramOrder::isBefore(Operation *a, Operation *b) {
  assert(a->getBlock() == b->getBlock() && "ops of different blocks");
  return positionOf(a) < positionOf(b);
}

uint64_t ProgramOrder::positionOf(Operation *op) {
  auto it = positions.find(op);
  if (it != positions.end())
    return it->second;
  renumber(op->getBlock());
  return positions.lookup(op);
}

void ProgramOrder::renumber(Block *block) {
  uint64_t count = block->getOperations().size();
  uint64_t stride =
      std::min(kStride, std::numeric_limits<uint64_t>::max() / (count + 2));
  uint64_t position = 0;
  for (Operation &op : *block)
    positions[&op] = position += stride;
}

void ProgramOrder::placedBefore(ArrayRef<Operation *> ops, Operation *anchor) {
  if (ops.empty())
    return;
  for (Operation *op : ops)
    positions.erase(op);
  Operation *previous = ops.front()->getPrevNode();
  uint64_t low = previous ? positionOf(previous) : 0;
  uint64_t high = positionOf(anchor);
  uint64_t gap = (high - low) / (ops.size() + 1);
  if (high <= low || gap == 0) {
    renumber(anchor->getBlock());
    return;
  }
  uint64_t position = low;
  for (Operation *op : ops)
    positions[op] = position += gap;
}

} // namespace tfc::fusion
