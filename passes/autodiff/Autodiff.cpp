//===- Autodiff.cpp - --tfc-autodiff --------------------------------------===//
//
// Reverse-mode differentiation of a single-block loss function. The forward
// is kept as it is (the backward reads its activations); the backward is
// appended in reverse program order, one VJP per op on a path from a
// parameter to the loss, each built by the op's DifferentiableOpInterface.
// A tfc.stop_gradient's result is inactive (no gradient flows through it),
// a tfc.straight_through's is active when its source is; once the backward
// is built the function's stop_gradients are their operands and its
// straight_throughs their values.
//
//===----------------------------------------------------------------------===//

#include "passes/autodiff/Passes.h"
#include "passes/autodiff/ReverseMode.h"

#include "dialects/tfc/TfcOps.h"
#include "dialects/tfc/TfcVjps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/STLExtras.h"

namespace tfc {
#define GEN_PASS_DEF_TFCAUTODIFFPASS
#include "passes/autodiff/Passes.h.inc"
} // namespace tfc

using namespace mlir;
using namespace mlir::tfc;

namespace {

bool isFloatTensor(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  return tensor && isa<FloatType>(tensor.getElementType());
}

/// Appends the backward of `func` (a clone of the loss function) and makes
/// it return (loss, gradient of each parameter in `params`).
class ReverseMode {
public:
  ReverseMode(func::FuncOp func, ArrayRef<unsigned> params,
              StringRef seedMark, SmallVectorImpl<unsigned> *withoutGradient)
      : func(func), params(params), seedMark(seedMark),
        withoutGradient(withoutGradient) {}

  LogicalResult run() {
    Block &block = func.front();
    auto ret = cast<func::ReturnOp>(block.getTerminator());
    Value loss = ret.getOperand(0);
    findActiveValues(block);

    OpBuilder builder(ret);
    VjpBuilder v(builder, ret.getLoc());
    if (active.contains(loss)) {
      Value seed = v.scalar(tensorTypeOf(loss).getElementType(), 1.0);
      if (!seedMark.empty())
        seed.getDefiningOp()->setAttr(seedMark, builder.getUnitAttr());
      cotangents[loss] = seed;
      // The backward ops are inserted before the return, so the walk must
      // not visit them: stop at the first op that was there before.
      SmallVector<Operation *> forward;
      for (Operation &op : block.without_terminator())
        forward.push_back(&op);
      for (Operation *op : llvm::reverse(forward))
        if (failed(differentiate(op, builder)))
          return failure();
    }

    SmallVector<Value> results{loss};
    SmallVector<Type> resultTypes{loss.getType()};
    for (unsigned index : params) {
      Value arg = func.getArgument(index);
      Value grad = cotangents.lookup(arg);
      if (!grad) {
        grad = v.zeros(tensorTypeOf(arg));
        if (withoutGradient)
          withoutGradient->push_back(index);
      }
      results.push_back(grad);
      resultTypes.push_back(arg.getType());
    }
    // The loss's other results (new values of model state such as batch
    // norm's running statistics) follow the gradients, not differentiated:
    // the backward starts from the loss alone.
    for (Value extra : ret.getOperands().drop_front()) {
      results.push_back(extra);
      resultTypes.push_back(extra.getType());
    }
    ret->setOperands(results);
    func.setFunctionType(FunctionType::get(
        func.getContext(), func.getArgumentTypes(), resultTypes));
    func.removeResAttrsAttr();
    eraseDeadOps(block);
    // Both gradient marks keep their first operand (operand, value).
    block.walk([](Operation *op) {
      if (!isa<StopGradientOp, StraightThroughOp>(op))
        return;
      op->getResult(0).replaceAllUsesWith(op->getOperand(0));
      op->erase();
    });
    return success();
  }

private:
  /// Marks the float values that depend on a parameter through ops other
  /// than tfc.stop_gradient (and, for a tfc.straight_through, through its
  /// source): only those can carry a gradient back to one.
  void findActiveValues(Block &block) {
    for (unsigned index : params)
      active.insert(func.getArgument(index));
    for (Operation &op : block.without_terminator()) {
      if (isa<StopGradientOp>(op) ||
          llvm::none_of(op.getOperands(),
                        [&](Value v) { return active.contains(v); }))
        continue;
      // A straight-through result carries its source's gradient only.
      if (auto st = dyn_cast<StraightThroughOp>(op);
          st && !active.contains(st.getSource()))
        continue;
      for (Value result : op.getResults())
        if (isFloatTensor(result.getType()))
          active.insert(result);
    }
  }

  LogicalResult differentiate(Operation *op, OpBuilder &builder) {
    SmallVector<Value> resultCotangents;
    for (Value result : op->getResults())
      resultCotangents.push_back(cotangents.lookup(result));
    if (llvm::all_of(resultCotangents, [](Value c) { return !c; }))
      return success();
    auto differentiable = dyn_cast<DifferentiableOpInterface>(op);
    if (!differentiable) {
      InFlightDiagnostic diag =
          op->emitError() << "'" << op->getName()
                          << "' is not differentiable but lies on the path "
                             "from a parameter to the loss";
      if (isa<CheckpointOp>(op))
        diag << " (dissolve checkpoints first: --tfc-inline-checkpoints; "
                "the pipelines do)";
      return diag;
    }
    FailureOr<SmallVector<Value>> operandCotangents =
        differentiable.buildVjp(builder, resultCotangents);
    if (failed(operandCotangents))
      return failure();
    if (operandCotangents->size() != op->getNumOperands())
      return op->emitError() << "the VJP of '" << op->getName()
                             << "' returned " << operandCotangents->size()
                             << " cotangents for " << op->getNumOperands()
                             << " operands";
    for (auto [index, operand, cotangent] :
         llvm::enumerate(op->getOperands(), *operandCotangents)) {
      if (!cotangent || !active.contains(operand))
        continue;
      if (cotangent.getType() != operand.getType())
        return op->emitError()
               << "the VJP of '" << op->getName() << "' built a cotangent of "
               << cotangent.getType() << " for operand #" << index << " of "
               << operand.getType();
      // Several uses (tied weights, residual streams): gradients add up.
      Value &sum = cotangents[operand];
      sum = sum ? builder.create<AddOp>(cotangent.getLoc(), operand.getType(),
                                        sum, cotangent)
                      .getResult()
                : cotangent;
    }
    return success();
  }

  /// VJPs build cotangents of every operand; those of inactive operands
  /// (and forward values the backward does not read) are dropped here.
  static void eraseDeadOps(Block &block) {
    SmallVector<Operation *> ops;
    for (Operation &op : block.without_terminator())
      ops.push_back(&op);
    // Users come after their operands: erasing in reverse frees chains.
    for (Operation *op : llvm::reverse(ops))
      if (isOpTriviallyDead(op))
        op->erase();
  }

  func::FuncOp func;
  ArrayRef<unsigned> params;
  StringRef seedMark;
  SmallVectorImpl<unsigned> *withoutGradient;
  llvm::DenseSet<Value> active;
  llvm::DenseMap<Value, Value> cotangents;
};

} // namespace

namespace tfc {
LogicalResult appendGradients(func::FuncOp func, ArrayRef<unsigned> params,
                              StringRef seedMark,
                              SmallVectorImpl<unsigned> *withoutGradient) {
  return ReverseMode(func, params, seedMark, withoutGradient).run();
}

const char kLossResultsRule[] =
    "one scalar loss (a 0-d floating-point tensor), then only updates of "
    "model state ({tfc.update})";

bool returnsLossAndUpdates(func::FuncOp loss) {
  ArrayRef<Type> results = loss.getResultTypes();
  if (results.empty())
    return false;
  for (unsigned i = 1, e = results.size(); i < e; ++i)
    if (!loss.getResultAttr(i, TfcDialect::kUpdateAttrName))
      return false;
  auto type = dyn_cast<RankedTensorType>(results.front());
  return type && type.getRank() == 0 && isFloatTensor(type);
}

SmallVector<Attribute> stateUpdates(func::FuncOp loss) {
  SmallVector<Attribute> updates;
  for (unsigned i = 1, e = loss.getNumResults(); i < e; ++i)
    updates.push_back(loss.getResultAttr(i, TfcDialect::kUpdateAttrName));
  return updates;
}

void setStateUpdates(func::FuncOp grad, unsigned first,
                     ArrayRef<Attribute> updates) {
  for (auto [i, update] : llvm::enumerate(updates))
    grad.setResultAttr(first + i, TfcDialect::kUpdateAttrName, update);
}
} // namespace tfc

namespace {

struct TfcAutodiffPass
    : public ::tfc::impl::TfcAutodiffPassBase<TfcAutodiffPass> {
  using TfcAutodiffPassBase::TfcAutodiffPassBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    auto func = module.lookupSymbol<func::FuncOp>(function);
    if (!func) {
      module.emitError("--tfc-autodiff: no func.func @")
          << function << " to differentiate (choose one with function=<name>)";
      return signalPassFailure();
    }
    if (failed(checkLossFunction(func)))
      return signalPassFailure();
    std::string gradName = function + "_grad";
    if (module.lookupSymbol(gradName)) {
      func.emitError("--tfc-autodiff: the module already has a symbol @")
          << gradName;
      return signalPassFailure();
    }
    SmallVector<unsigned> params;
    for (unsigned i = 0, e = func.getNumArguments(); i < e; ++i)
      if (func.getArgAttr(i, TfcDialect::kParamAttrName))
        params.push_back(i);
    if (params.empty()) {
      func.emitError("--tfc-autodiff: @")
          << function << " has no argument marked tfc.param: nothing to "
                         "differentiate";
      return signalPassFailure();
    }

    // The updates of model state the loss returns after it keep their
    // names (the gradient function returns them after the gradients).
    SmallVector<Attribute> updates = ::tfc::stateUpdates(func);
    func::FuncOp grad = func.clone();
    grad.setName(gradName);
    SymbolTable(module).insert(grad, std::next(Block::iterator(func)));
    if (failed(::tfc::appendGradients(grad, params))) {
      grad.erase();
      return signalPassFailure();
    }
    // Outputs named for the runtime: the loss, then grad.<parameter name>.
    auto name = [&](unsigned result, const Twine &text) {
      grad.setResultAttr(result, TfcDialect::kOutputAttrName,
                         StringAttr::get(grad.getContext(), text));
    };
    name(0, "loss");
    for (auto [i, index] : llvm::enumerate(params))
      name(i + 1, "grad." + func.getArgAttrOfType<StringAttr>(
                                    index, TfcDialect::kParamAttrName)
                                .getValue());
    ::tfc::setStateUpdates(grad, 1 + params.size(), updates);
  }

  static LogicalResult checkLossFunction(func::FuncOp func) {
    if (func.isExternal() || !func.getBody().hasOneBlock())
      return func.emitError("--tfc-autodiff: @")
             << func.getName() << " must have a body of exactly one block";
    if (!::tfc::returnsLossAndUpdates(func)) {
      std::string got;
      llvm::raw_string_ostream os(got);
      llvm::interleaveComma(func.getResultTypes(), os);
      return func.emitError("--tfc-autodiff: @")
             << func.getName() << " must return " << ::tfc::kLossResultsRule
             << ", got (" << got << ")";
    }
    return success();
  }
};

} // namespace
