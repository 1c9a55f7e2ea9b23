//===- KernelMerge.cpp - merging tfc.fusion kernels -----------------------===//
//
// A merge is built on the side (a detached block), checked with the kernel
// rules, and only then swapped into the function, so a rejected candidate
// costs a clone and leaves no trace. Member bodies are cloned in program
// order: a block argument standing for another member's result (or a
// reshape view of it) becomes that result's value inside the new body; any
// other operand becomes an input of the merged kernel, once.
//
//===----------------------------------------------------------------------===//

#include "passes/fusion/KernelMerge.h"

#include "dialects/tfc/TfcDialect.h"
#include "dialects/tfc/TfcKernelRules.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/OperationSupport.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"

#include <unordered_map>

using namespace mlir;
using namespace mlir::tfc;

namespace {

/// Whether the loops of a multi-tensor body that sums whole tensors hold at
/// most limits.maxSumLoopOps ops each: ops are counted by the element
/// count of their result (the loop computing them), constants and scalars
/// aside.
bool sumLoopsFit(Block &body, const ::tfc::fusion::MergeLimits &limits) {
  if (!limits.maxSumLoopOps ||
      !llvm::any_of(body.without_terminator(),
                    [](Operation &op) { return isTensorSum(&op); }))
    return true;
  llvm::DenseMap<int64_t, unsigned> ops;
  for (Operation &op : body.without_terminator()) {
    if (isa<ConstantOp>(op) || op.getNumResults() == 0)
      continue;
    auto type = dyn_cast<ShapedType>(op.getResult(0).getType());
    if (type && type.hasStaticShape() && type.getNumElements() > 1 &&
        ++ops[type.getNumElements()] > limits.maxSumLoopOps)
      return false;
  }
  return true;
}


void sortByProgramOrder(SmallVectorImpl<FusionOp> &kernels,
                        ::tfc::fusion::ProgramOrder &order) {
  llvm::sort(kernels, [&](FusionOp a, FusionOp b) {
    return order.isBefore(a.getOperation(), b.getOperation());
  });
  kernels.erase(std::unique(kernels.begin(), kernels.end()), kernels.end());
}

/// Adds the fusions reading `value` through any chain of reshapes to
/// `kernels`; sets `external` for any other reader.
void collectReaders(Value value, SmallVectorImpl<FusionOp> &kernels,
                    bool &external) {
  for (Operation *user : value.getUsers()) {
    if (auto fusion = dyn_cast<FusionOp>(user))
      kernels.push_back(fusion);
    else if (auto reshape = dyn_cast<ReshapeOp>(user))
      collectReaders(reshape.getResult(), kernels, external);
    else
      external = true;
  }
}

/// Whether something other than the ops of `inside` reads `value`, looking
/// through reshapes.
bool readOutside(Value value, const llvm::DenseSet<Operation *> &inside) {
  for (Operation *user : value.getUsers()) {
    if (inside.contains(user))
      continue;
    if (auto reshape = dyn_cast<ReshapeOp>(user)) {
      if (readOutside(reshape.getResult(), inside))
        return true;
      continue;
    }
    return true;
  }
  return false;
}

/// Erases the reshapes of `value` (recursively) that nothing reads.
void eraseDeadViews(Value value, ::tfc::fusion::ProgramOrder &order) {
  for (Operation *user : llvm::make_early_inc_range(value.getUsers())) {
    auto reshape = dyn_cast<ReshapeOp>(user);
    if (!reshape)
      continue;
    eraseDeadViews(reshape.getResult(), order);
    if (reshape->use_empty()) {
      order.erased(reshape);
      reshape->erase();
    }
  }
}

/// How a value read between the members of a group depends on the group.
enum class Origin {
  Member,    ///< a result of a member the merged kernel replaces (or a view)
  Dependent, ///< a result of an op that reads the group, which moves
};

/// Local CSE of the merged body: members cloned from one-op kernels repeat
/// constants and, after duplication, whole producers. A recomputed clone
/// (--tfc-recompute's tfc.recomputed marker) that landed in the kernel of
/// the op it copies is a duplicate too: the value stays inside the kernel
/// either way (the loss kernel, whose logits convert the backward
/// recomputes, then reduces the logits' row statistics once).
///
/// The ops kept so far are found by their hash (the one MLIR's CSE uses,
/// which equivalent ops share), each bucket in body order, so the first
/// equivalent op is found without comparing against every op kept: a body
/// grown by merging one kernel after another into it would otherwise cost
/// its size squared per merge.
void deduplicate(Block &body) {
  std::unordered_map<size_t, SmallVector<Operation *, 1>> seen;
  auto hashOf = [](Operation *op) -> size_t {
    return OperationEquivalence::computeHash(
        op, OperationEquivalence::directHashValue,
        OperationEquivalence::ignoreHashValue,
        OperationEquivalence::IgnoreLocations);
  };
  auto findSame = [&](Operation *op) -> Operation * {
    auto bucket = seen.find(hashOf(op));
    if (bucket == seen.end())
      return nullptr;
    for (Operation *other : bucket->second)
      if (OperationEquivalence::isEquivalentTo(
              op, other, OperationEquivalence::exactValueMatch,
              /*markEquivalent=*/nullptr,
              OperationEquivalence::IgnoreLocations))
        return other;
    return nullptr;
  };
  for (Operation &op : llvm::make_early_inc_range(body.without_terminator())) {
    if (op.getNumRegions() != 0 || !isPure(&op))
      continue;
    Operation *same = findSame(&op);
    if (!same) {
      if (Attribute mark =
              op.getDiscardableAttr(mlir::tfc::TfcDialect::kRecomputedAttrName)) {
        op.removeDiscardableAttr(mlir::tfc::TfcDialect::kRecomputedAttrName);
        same = findSame(&op);
        if (!same)
          op.setDiscardableAttr(mlir::tfc::TfcDialect::kRecomputedAttrName,
                                mark);
      }
    }
    if (!same) {
      seen[hashOf(&op)].push_back(&op);
      continue;
    }
    op.replaceAllUsesWith(same->getResults());
    op.erase();
  }
}

} // namespace

namespace tfc::fusion {

Value viewRoot(Value value) {
  while (auto reshape = value.getDefiningOp<ReshapeOp>())
    value = reshape.getX();
  return value;
}

Readers readersOf(FusionOp fusion, ProgramOrder &order) {
  Readers readers;
  for (Value result : fusion.getResults())
    collectReaders(result, readers.kernels, readers.external);
  sortByProgramOrder(readers.kernels, order);
  return readers;
}

SmallVector<FusionOp> kernelsReading(Value value, ProgramOrder &order) {
  SmallVector<FusionOp> kernels;
  bool external = false;
  collectReaders(value, kernels, external);
  sortByProgramOrder(kernels, order);
  return kernels;
}

std::optional<KernelKind> combinedKind(KernelKind a, KernelKind b) {
  auto mergeable = [](KernelKind k) {
    return k == KernelKind::pointwise || k == KernelKind::row_reduction ||
           k == KernelKind::column_reduction || k == KernelKind::gather ||
           k == KernelKind::multi_tensor;
  };
  if (!mergeable(a) || !mergeable(b))
    return std::nullopt;
  if (a == b)
    return a;
  if (a == KernelKind::pointwise)
    return b;
  if (b == KernelKind::pointwise)
    return a;
  // A row kernel holds column sums over its rows (the kernel rules decide
  // whether these reductions are such sums).
  if ((a == KernelKind::row_reduction && b == KernelKind::column_reduction) ||
      (a == KernelKind::column_reduction && b == KernelKind::row_reduction))
    return KernelKind::row_reduction;
  return std::nullopt;
}

int64_t bytesOf(Value value) {
  auto type = cast<ShapedType>(value.getType());
  Type et = type.getElementType();
  int64_t bytes = et.isInteger(1) ? 1 : (et.getIntOrFloatBitWidth() + 7) / 8;
  return type.getNumElements() * bytes;
}

int64_t iterationSize(FusionOp fusion) {
  int64_t size = 1;
  for (Operation &op : fusion.getBodyBlock().without_terminator()) {
    auto role = dyn_cast<KernelRoleOpInterface>(op);
    if (role && role.getKernelRole() != KernelRole::Pointwise &&
        op.getNumOperands() > 0) {
      // Reductions iterate over their input; for cross_entropy_grad that is
      // the logits (operand 1), for the others operand 0 or 1 have the
      // row shape: take the largest operand.
      for (Value operand : op.getOperands())
        size = std::max(size,
                        cast<ShapedType>(operand.getType()).getNumElements());
    }
  }
  for (Value result : fusion.getResults())
    size = std::max(size, cast<ShapedType>(result.getType()).getNumElements());
  return size;
}

int64_t elementsPassed(FusionOp producer, FusionOp reader) {
  int64_t elements = 0;
  for (Value result : producer.getResults()) {
    SmallVector<FusionOp> kernels;
    bool external = false;
    collectReaders(result, kernels, external);
    if (llvm::is_contained(kernels, reader))
      elements += cast<ShapedType>(result.getType()).getNumElements();
  }
  return elements;
}

unsigned opCount(FusionOp fusion) {
  return static_cast<unsigned>(fusion.getBodyBlock().getOperations().size()) -
         1;
}

FailureOr<FusionOp> mergeKernels(ArrayRef<FusionOp> membersIn,
                                 ArrayRef<FusionOp> duplicatedIn,
                                 KernelKind kind, ProgramOrder &order,
                                 bool dryRun, MergeCheck accept) {
  MergeLimits limits = MergeLimits::of(kind);
  SmallVector<FusionOp> members(membersIn.begin(), membersIn.end());
  Block *block = members.front()->getBlock();
  if (llvm::any_of(members, [&](FusionOp m) { return m->getBlock() != block; }))
    return failure();
  sortByProgramOrder(members, order);
  if (members.size() < 2)
    return failure();
  // `replacedSet`: the members the merged kernel replaces (a duplicated
  // member stays and reads like any other op outside the group).
  llvm::DenseSet<Operation *> memberSet, duplicatedSet, replacedSet;
  for (FusionOp m : members)
    memberSet.insert(m);
  for (FusionOp d : duplicatedIn)
    duplicatedSet.insert(d);
  for (FusionOp m : members)
    if (!duplicatedSet.contains(m))
      replacedSet.insert(m);
  Operation *first = members.front(), *last = members.back();

  // The ops before the last member that depend on a replaced member: the
  // merged kernel sits where the last member is, so they move after it
  // (views of the members too, re-pointed at it), and no member may read
  // one (that is the cycle); a duplicated member stays where it is, so it
  // must not read a replaced member either. They are found by following
  // uses from the replaced members rather than by walking every op in
  // between, which made fusion quadratic: two readers of one value, one in
  // the forward and one in the backward, have most of the step between
  // them. The search gives up past limits.maxMovedOps (see there).
  SmallVector<std::pair<Value, Origin>> work;
  for (FusionOp m : members)
    if (!duplicatedSet.contains(m))
      for (Value result : m.getResults())
        work.push_back({result, Origin::Member});
  llvm::DenseSet<Operation *> dependents;
  SmallVector<Operation *> toMove;
  while (!work.empty()) {
    auto [value, origin] = work.pop_back_val();
    for (Operation *user : value.getUsers()) {
      Operation *op = block->findAncestorOpInBlock(*user);
      if (!op || order.isBefore(last, op))
        continue;
      if (memberSet.contains(op)) {
        if (origin == Origin::Dependent || duplicatedSet.contains(op))
          return failure();
        continue;
      }
      if (!dependents.insert(op).second)
        continue;
      if (toMove.size() == limits.maxMovedOps)
        return failure();
      toMove.push_back(op);
      // A view has its source's origin: a member's view reads as the
      // member.
      Origin next = isa<ReshapeOp>(op) && op == user ? origin
                                                     : Origin::Dependent;
      for (Value result : op->getResults())
        work.push_back({result, next});
    }
  }
  llvm::sort(toMove,
             [&](Operation *a, Operation *b) { return order.isBefore(a, b); });

  // Clone the member bodies into the region of a detached placeholder op
  // (a block outside any region cannot hold ops that ask for their
  // context through it).
  MLIRContext *ctx = first->getContext();
  OpBuilder detached(ctx);
  OwningOpRef<FusionOp> holder =
      detached.create<FusionOp>(first->getLoc(), TypeRange(),
                                KernelKindAttr::get(ctx, kind), ValueRange());
  Block *body = new Block();
  holder->getBody().push_back(body);
  OpBuilder builder = OpBuilder::atBlockEnd(body);
  IRMapping outer; // member results and their views -> values in the body
  SmallVector<Value> inputs;
  std::function<Value(Value)> resolve = [&](Value value) -> Value {
    if (Value inside = outer.lookupOrNull(value))
      return inside;
    auto reshape = value.getDefiningOp<ReshapeOp>();
    Operation *root = viewRoot(value).getDefiningOp();
    if (reshape && root && memberSet.contains(root)) {
      Value source = resolve(reshape.getX());
      Value view =
          builder.create<ReshapeOp>(reshape.getLoc(), reshape.getType(), source)
              .getResult();
      outer.map(value, view);
      return view;
    }
    inputs.push_back(value);
    Value argument = body->addArgument(value.getType(), value.getLoc());
    outer.map(value, argument);
    return argument;
  };
  SmallVector<Location> locs;
  for (FusionOp member : members) {
    locs.push_back(member.getLoc());
    IRMapping inner;
    for (auto [argument, input] : llvm::zip_equal(
             member.getBodyBlock().getArguments(), member.getInputs()))
      inner.map(argument, resolve(input));
    for (Operation &op : member.getBodyBlock().without_terminator())
      builder.clone(op, inner);
    for (auto [result, yielded] :
         llvm::zip_equal(member.getResults(), member.getYield().getValues()))
      outer.map(result, inner.lookupOrDefault(yielded));
  }

  // Outputs: what outside the group still reads of the replaced members.
  SmallVector<Value> replaced, yielded;
  for (FusionOp member : members) {
    if (duplicatedSet.contains(member))
      continue;
    for (Value result : member.getResults()) {
      if (!readOutside(result, replacedSet))
        continue;
      replaced.push_back(result);
      yielded.push_back(outer.lookup(result));
    }
  }
  Location loc = FusedLoc::get(ctx, locs);
  auto yield = builder.create<YieldOp>(loc, yielded);
  deduplicate(*body);
  // Deduplication may have replaced a yielded value by its twin (two
  // members computing the same op, e.g. a recomputed one): read them back.
  yielded.assign(yield.getValues().begin(), yield.getValues().end());

  auto discard = [&]() -> FailureOr<FusionOp> {
    body->dropAllDefinedValueUses();
    return failure();
  };
  if (yielded.empty() || inputs.size() > limits.maxInputs ||
      inputs.size() + yielded.size() > limits.maxParams ||
      body->getOperations().size() - 1 > limits.maxOps ||
      !sumLoopsFit(*body, limits))
    return discard();
  if (failed(verifyKernelBody(*body, kind)))
    return discard();
  if (accept && failed(accept(*body, inputs, replaced)))
    return discard();
  if (dryRun) {
    body->dropAllDefinedValueUses();
    return FusionOp();
  }

  // Swap the merged kernel in.
  OpBuilder outside(last);
  SmallVector<Type> resultTypes;
  for (Value v : yielded)
    resultTypes.push_back(v.getType());
  auto fusion = outside.create<FusionOp>(
      loc, resultTypes, KernelKindAttr::get(ctx, kind), inputs);
  fusion.getBody().takeBody(holder->getBody());
  for (auto [old, now] : llvm::zip_equal(replaced, fusion.getResults()))
    old.replaceAllUsesWith(now);
  Operation *after = fusion;
  for (Operation *op : toMove) {
    op->moveAfter(after);
    after = op;
  }
  SmallVector<Operation *> placed = {fusion};
  placed.append(toMove.begin(), toMove.end());
  order.placedBefore(placed, last);
  for (FusionOp member : llvm::reverse(members)) {
    for (Value result : member.getResults())
      eraseDeadViews(result, order);
    if (duplicatedSet.contains(member)) {
      if (member->use_empty()) {
        order.erased(member);
        member->erase();
      }
      continue;
    }
    member->dropAllUses();
    order.erased(member);
    member->erase();
  }
  return fusion;
}

} // namespace tfc::fusion
