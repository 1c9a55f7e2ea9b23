//===- TfcrtInPlace.cpp - when a kernel may write over its input ----------===//
//
// The index-preserving ops are the ones with the Tfc_ReadsAtResultIndex trait
// (dialects/tfc/TfcBase.td), not derived from the kernel role: the
// pointwise role also covers views (transpose, slice, broadcast_to, ...)
// that read other elements. An op without the trait only costs a copy,
// while a wrong one corrupts an update.
//
//===----------------------------------------------------------------------===//

#include "dialects/tfcrt/TfcrtInPlace.h"

#include "dialects/tfc/TfcOps.h"

#include "llvm/ADT/SmallPtrSet.h"

using namespace mlir;
using namespace mlir::tfc;

namespace {

/// Whether every element i of `op`'s results reads operand `operand` at
/// element i only: an op with the ReadsAtResultIndex trait (elementwise
/// ops, dropout, the optimizer updates) whose results all have the
/// operand's shape, so it is not broadcast.
bool readsAtResultIndex(Operation *op, OpOperand &operand) {
  if (!op->hasTrait<OpTrait::tfc::ReadsAtResultIndex>())
    return false;
  auto type = dyn_cast<ShapedType>(operand.get().getType());
  if (!type || !type.hasRank())
    return false;
  return llvm::all_of(op->getResultTypes(), [&](Type result) {
    auto shaped = dyn_cast<ShapedType>(result);
    return shaped && shaped.hasRank() && shaped.getShape() == type.getShape();
  });
}

LogicalResult fail(function_ref<InFlightDiagnostic()> emitError,
                   const Twine &message) {
  if (emitError)
    emitError() << message;
  return failure();
}

/// The pointwise / multi_tensor rule: every use of `input`, followed through
/// the body, is read at the index of the element being computed.
LogicalResult
checkSameIndexReads(BlockArgument input, Operation *terminator,
                    function_ref<InFlightDiagnostic()> emitError) {
  SmallVector<Value> worklist{input};
  llvm::SmallPtrSet<Operation *, 8> visited;
  while (!worklist.empty()) {
    Value value = worklist.pop_back_val();
    for (OpOperand &use : value.getUses()) {
      Operation *user = use.getOwner();
      if (user == terminator)
        continue;
      if (!readsAtResultIndex(user, use)) {
        if (emitError) {
          InFlightDiagnostic diag = emitError();
          diag << "input #" << input.getArgNumber() << " is read by '"
               << user->getName().getStringRef()
               << "' at other indices than the element it computes (a "
                  "broadcast, view, reduction or gather), so it cannot be "
                  "overwritten while the kernel runs";
          diag.attachNote(user->getLoc()) << "read here";
        }
        return failure();
      }
      if (visited.insert(user).second)
        llvm::append_range(worklist, user->getResults());
    }
  }
  return success();
}

/// The block_quantized rule: `input` feeds only the adamw8bit op, as the
/// state operand whose updated value is output `output`.
LogicalResult
checkQuantizedState(BlockArgument input, Value output,
                    function_ref<InFlightDiagnostic()> emitError) {
  // adamw8bit's state operands and the results that replace them.
  static constexpr std::pair<unsigned, unsigned> kStatePairs[] = {
      {0, 0}, {2, 1}, {3, 2}, {4, 3}, {5, 4}};
  auto result = dyn_cast<OpResult>(output);
  auto op = result ? dyn_cast<AdamW8bitOp>(result.getOwner()) : AdamW8bitOp();
  if (op && input.hasOneUse()) {
    OpOperand &use = *input.getUses().begin();
    for (auto [operand, resultNumber] : kStatePairs)
      if (use.getOwner() == op && use.getOperandNumber() == operand &&
          result.getResultNumber() == resultNumber)
        return success();
  }
  return fail(emitError, "in a block_quantized kernel only a state operand "
                         "of the tfc.adamw8bit op (param, a moment's codes "
                         "or absmax), used by nothing else, may share its "
                         "buffer with the result that updates it");
}

} // namespace

LogicalResult
mlir::tfcrt::checkInPlaceOutput(Block &body, KernelKind kind, unsigned input,
                                unsigned output,
                                function_ref<InFlightDiagnostic()> emitError) {
  if (body.empty() || !body.back().hasTrait<OpTrait::IsTerminator>())
    return fail(emitError, "kernel body has no terminator");
  Operation *terminator = &body.back();
  if (input >= body.getNumArguments())
    return fail(emitError, "in-place input #" + Twine(input) +
                               " is out of range (the kernel has " +
                               Twine(body.getNumArguments()) + " inputs)");
  if (output >= terminator->getNumOperands())
    return fail(emitError, "in-place output #" + Twine(output) +
                               " is out of range (the kernel has " +
                               Twine(terminator->getNumOperands()) +
                               " outputs)");
  BlockArgument argument = body.getArgument(input);
  Value result = terminator->getOperand(output);
  if (argument.getType() != result.getType()) {
    if (emitError)
      emitError() << "output #" << output << " (" << result.getType()
                  << ") cannot share the buffer of input #" << input << " ("
                  << argument.getType() << "): the types differ";
    return failure();
  }
  if (!kindUpdatesInPlace(kind))
    return fail(emitError,
                "a " + stringifyKernelKind(kind) +
                    " kernel never writes over its inputs (only pointwise, "
                    "multi_tensor and block_quantized kernels update in "
                    "place)");
  switch (kind) {
  case KernelKind::pointwise:
  case KernelKind::multi_tensor:
    return checkSameIndexReads(argument, terminator, emitError);
  case KernelKind::block_quantized:
    return checkQuantizedState(argument, result, emitError);
  default:
    llvm_unreachable("kindUpdatesInPlace accepted another kind");
  }
}

bool mlir::tfcrt::kindUpdatesInPlace(KernelKind kind) {
  return kind == KernelKind::pointwise || kind == KernelKind::multi_tensor ||
         kind == KernelKind::block_quantized;
}
