//===- TfcFusionOps.cpp - tfc's region ops: fusion, checkpoint -----------===//
//
// Assembly form, structural verifiers and the kernel-body rule check of
// tfc.fusion, tfc.checkpoint and tfc.yield. The rules themselves live in
// TfcKernelRules.cpp so that the fusion passes can test candidate groups
// with them.
//
//===----------------------------------------------------------------------===//

#include "dialects/tfc/TfcKernelRules.h"
#include "dialects/tfc/TfcOps.h"

#include "mlir/IR/Builders.h"

using namespace mlir;
using namespace mlir::tfc;

//===----------------------------------------------------------------------===//
// custom<FusionBody>: `(%arg = %input : type, ...) -> types { body }`
//===----------------------------------------------------------------------===//

// Binding each block argument to its operand in one list reads like a kernel
// signature and keeps the operand and the name used in the body side by side,
// which the plain `(%x) ... ^bb0(%a: ...)` form separates.
static ParseResult
parseFusionBody(OpAsmParser &parser,
                SmallVectorImpl<OpAsmParser::UnresolvedOperand> &inputs,
                SmallVectorImpl<Type> &inputTypes,
                SmallVectorImpl<Type> &resultTypes, Region &body) {
  SmallVector<OpAsmParser::Argument> arguments;
  auto parseBinding = [&]() -> ParseResult {
    OpAsmParser::Argument argument;
    OpAsmParser::UnresolvedOperand input;
    if (parser.parseArgument(argument) || parser.parseEqual() ||
        parser.parseOperand(input) || parser.parseColonType(argument.type))
      return failure();
    arguments.push_back(argument);
    inputs.push_back(input);
    inputTypes.push_back(argument.type);
    return success();
  };
  if (parser.parseCommaSeparatedList(OpAsmParser::Delimiter::Paren,
                                     parseBinding, " in the input list") ||
      parser.parseArrowTypeList(resultTypes))
    return failure();
  return parser.parseRegion(body, arguments);
}

static void printFusionBody(OpAsmPrinter &printer, Operation *,
                            OperandRange inputs, TypeRange inputTypes,
                            TypeRange resultTypes, Region &body) {
  printer << '(';
  // Verified ops have one block argument per input; zip (not zip_equal)
  // keeps printing an unverified op from reading past either list.
  llvm::interleaveComma(llvm::zip(body.getArguments(), inputs, inputTypes),
                        printer, [&](auto binding) {
                          auto [argument, input, type] = binding;
                          printer << argument << " = " << input << " : "
                                  << type;
                        });
  // printArrowTypeList brings its own spaces: " -> ".
  printer << ')';
  printer.printArrowTypeList(resultTypes);
  printer << ' ';
  printer.printRegion(body, /*printEntryBlockArgs=*/false);
}

#define GET_OP_CLASSES
#include "dialects/tfc/TfcFusionOps.cpp.inc"

void TfcDialect::registerFusionOps() {
  addOperations<
#define GET_OP_LIST
#include "dialects/tfc/TfcFusionOps.cpp.inc"
      >();
}

//===----------------------------------------------------------------------===//
// FusionOp
//===----------------------------------------------------------------------===//

YieldOp FusionOp::getYield() {
  return cast<YieldOp>(getBodyBlock().getTerminator());
}

void FusionOp::getAsmBlockArgumentNames(Region &region,
                                        OpAsmSetValueNameFn setNameFn) {
  // `%in`, `%in_0`, ... tell kernel inputs apart from the enclosing
  // function's `%argN` in the printed IR.
  for (BlockArgument argument : region.getArguments())
    setNameFn(argument, "in");
}

/// What tfc.fusion and tfc.checkpoint share: at least one result, and one
/// body argument of each input's type per input.
static LogicalResult verifyBoundRegion(Operation *op, Block &body,
                                       OperandRange inputs) {
  if (op->getNumResults() == 0)
    return op->emitOpError("must produce at least one result");
  if (body.getNumArguments() != inputs.size())
    return op->emitOpError("body has ")
           << body.getNumArguments() << " arguments but the op has "
           << inputs.size() << " inputs";
  for (auto [index, argument, input] :
       llvm::enumerate(body.getArguments(), inputs))
    if (argument.getType() != input.getType())
      return op->emitOpError("body argument #")
             << index << " has type " << argument.getType() << " but input #"
             << index << " has type " << input.getType();
  return success();
}

LogicalResult FusionOp::verify() {
  return verifyBoundRegion(*this, getBodyBlock(), getInputs());
}

// The kernel rules query the body ops' interfaces (e.g. getRowGeometry),
// which is only safe once those ops have verified themselves.
LogicalResult FusionOp::verifyRegions() {
  return verifyKernelBody(getBodyBlock(), getKind(),
                          [&] { return emitOpError(); });
}

//===----------------------------------------------------------------------===//
// CheckpointOp
//===----------------------------------------------------------------------===//

YieldOp CheckpointOp::getYield() {
  return cast<YieldOp>(getBodyBlock().getTerminator());
}

void CheckpointOp::getAsmBlockArgumentNames(Region &region,
                                            OpAsmSetValueNameFn setNameFn) {
  // As tfc.fusion's: `%in`, `%in_0`, ...
  for (BlockArgument argument : region.getArguments())
    setNameFn(argument, "in");
}

LogicalResult CheckpointOp::verify() {
  if (failed(verifyBoundRegion(*this, getBodyBlock(), getInputs())))
    return failure();
  if ((*this)->getParentOfType<CheckpointOp>())
    return emitOpError("cannot be nested in another tfc.checkpoint");
  return success();
}

//===----------------------------------------------------------------------===//
// YieldOp
//===----------------------------------------------------------------------===//

LogicalResult YieldOp::verify() {
  Operation *parent = (*this)->getParentOp();
  if (getValues().size() != parent->getNumResults())
    return emitOpError("yields ")
           << getValues().size() << " values but the enclosing "
           << parent->getName() << " has " << parent->getNumResults()
           << " results";
  for (auto [index, value, result] :
       llvm::enumerate(getValues(), parent->getResults())) {
    if (value.getType() != result.getType())
      return emitOpError("value #")
             << index << " has type " << value.getType()
             << " but the enclosing " << parent->getName() << "'s result #"
             << index << " has type " << result.getType();
  }
  return success();
}
