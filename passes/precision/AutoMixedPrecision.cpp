//===- AutoMixedPrecision.cpp - --tfc-auto-mixed-precision ----------------===//
//
// Walks each function once, in order, and gives every op the precision its
// class asks for (PrecisionPolicy.h): operands that have the wrong float
// type get a tfc.convert right before the op, results are retyped (inferred
// where the op infers them, else the float results that had the operands'
// type take the new type). A value's users are visited after it, so every
// op sees its operands' final types. The pass runs on the forward: the VJP
// of tfc.convert then gives the backward the same choice of types.
//
//===----------------------------------------------------------------------===//

#include "passes/precision/Passes.h"

#include "passes/FunctionList.h"
#include "passes/precision/PrecisionPolicy.h"

#include "dialects/tfc/TfcOps.h"
#include "dialects/tfc/TfcVjps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/StringExtras.h"

namespace tfc {
#define GEN_PASS_DEF_TFCAUTOMIXEDPRECISIONPASS
#include "passes/precision/Passes.h.inc"
} // namespace tfc

using namespace mlir;
using namespace mlir::tfc;
using ::tfc::PrecisionClass;
using ::tfc::precisionClassOf;

namespace {

constexpr llvm::StringLiteral kPassFlag = "--tfc-auto-mixed-precision";

FloatType floatElement(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  return tensor ? dyn_cast<FloatType>(tensor.getElementType()) : FloatType();
}

Type withElement(Type type, Type element) {
  return cast<RankedTensorType>(type).clone(element);
}

/// The type float values of `a` and `b` meet at: equal types stay, else f32
/// (two different 16-bit types, or 16-bit with f32).
FloatType widest(FloatType a, FloatType b) {
  if (!a || a == b)
    return b;
  if (!b)
    return a;
  return Float32Type::get(a.getContext());
}

/// Retypes one function for a mixed precision with 16-bit type `low`.
class FunctionRetyper {
public:
  FunctionRetyper(func::FuncOp func, FloatType low)
      : func(func), low(low), f32(Float32Type::get(func.getContext())) {}

  LogicalResult run() {
    if (!func.getBody().hasOneBlock())
      return func.emitError(kPassFlag)
             << ": expected a function with one block (a graph-level tfc "
                "function)";
    for (BlockArgument arg : func.getArguments())
      if (func.getArgAttr(arg.getArgNumber(), "tfc.param"))
        weights.insert(arg);
    for (Operation &op :
         llvm::make_early_inc_range(func.getBody().front().getOperations()))
      if (failed(visit(&op)))
        return failure();
    return success();
  }

private:
  /// The type `v` had before this pass changed it.
  Type originalType(Value v) const {
    auto it = original.find(v);
    return it == original.end() ? v.getType() : it->second;
  }

  /// Makes operand `index` of `op` a tensor of element type `element`,
  /// through a tfc.convert of its own (one per use: a parameter's gradient
  /// is converted back to f32 before the gradients of its uses are summed).
  void convertOperand(Operation *op, unsigned index, Type element) {
    Value v = op->getOperand(index);
    OpBuilder b(op);
    if (auto attention = dyn_cast<AttentionOp>(op);
        attention && attention.getMask() == v)
      v = saturated(b, op->getLoc(), v, cast<FloatType>(element));
    Value c = b.create<ConvertOp>(op->getLoc(), withElement(v.getType(), element),
                                  v);
    op->setOperand(index, c);
  }

  /// `v` with its finite values beyond `narrow`'s range clamped to its
  /// largest finite magnitude (infinities and NaN kept): an additive
  /// attention mask of torch.finfo(torch.float32).min (Hugging Face's
  /// padding and sliding-window masks) would round to -inf in fp16 / bf16,
  /// and a row masked everywhere would then be NaN instead of the uniform
  /// weights torch computes with the f32 mask.
  Value saturated(OpBuilder &b, Location loc, Value v, FloatType narrow) {
    FloatType wide = floatElement(v.getType());
    if (!wide || wide.getWidth() <= narrow.getWidth())
      return v;
    double largest =
        APFloat::getLargest(narrow.getFloatSemantics()).convertToDouble();
    double inf = std::numeric_limits<double>::infinity();
    VjpBuilder vb(b, loc);
    Value hi = vb.scalar(wide, largest), lo = vb.scalar(wide, -largest);
    Value posInf = vb.scalar(wide, inf), negInf = vb.scalar(wide, -inf);
    // v > largest and finite -> largest; v < -largest and finite -> -largest.
    Value high = vb.select(vb.compare(CompareDirection::lt, v, posInf), hi, v);
    Value low = vb.select(vb.compare(CompareDirection::gt, v, negInf), lo, v);
    Value clamped = vb.select(vb.compare(CompareDirection::gt, v, hi), high, v);
    return vb.select(vb.compare(CompareDirection::lt, v, lo), low, clamped);
  }

  LogicalResult visit(Operation *op) {
    bool weight = llvm::all_of(op->getOperands(),
                               [&](Value v) { return weights.contains(v); });
    if (failed(retype(op)))
      return failure();
    if (weight)
      for (Value r : op->getResults())
        weights.insert(r);
    return success();
  }

  LogicalResult retype(Operation *op) {
    if (auto ret = dyn_cast<func::ReturnOp>(op)) {
      // The signature never changes: results go back to their types.
      FunctionType type = func.getFunctionType();
      for (unsigned i = 0; i < ret->getNumOperands(); ++i)
        if (ret->getOperand(i).getType() != type.getResult(i))
          convertOperand(op, i,
                         cast<RankedTensorType>(type.getResult(i))
                             .getElementType());
      return success();
    }
    if (!isa<TfcDialect>(op->getDialect())) {
      // Foreign ops keep the types they were written with.
      for (unsigned i = 0; i < op->getNumOperands(); ++i) {
        Type want = originalType(op->getOperand(i));
        if (want != op->getOperand(i).getType())
          convertOperand(op, i, cast<RankedTensorType>(want).getElementType());
      }
      return success();
    }
    PrecisionClass cls = precisionClassOf(op);
    if (cls == PrecisionClass::Refused)
      return op->emitError(kPassFlag)
             << ": '" << op->getName()
             << "' cannot be retyped; choose the precision on the forward, "
                "before --tfc-build-train-step and kernel formation";
    // User conversions, constants and iotas are left as written: a
    // constant is converted where an op reads it.
    if (isa<ConvertOp, ConstantOp, IotaOp>(op))
      return success();

    SmallVector<unsigned> floats;
    for (unsigned i = 0; i < op->getNumOperands(); ++i)
      if (FloatType t = floatElement(op->getOperand(i).getType())) {
        if (t.isF64() || floatElement(originalType(op->getOperand(i))).isF64())
          return success(); // f64 is a deliberate choice: leave the op
        floats.push_back(i);
      }
    if (floats.empty())
      return success();

    FloatType target;
    switch (cls) {
    case PrecisionClass::Low:
      target = low;
      break;
    case PrecisionClass::F32:
      target = f32;
      break;
    default: {
      FloatType activations, all;
      for (unsigned i : floats) {
        FloatType t = floatElement(op->getOperand(i).getType());
        all = widest(all, t);
        if (!weights.contains(op->getOperand(i)))
          activations = widest(activations, t);
      }
      target = activations ? activations : all;
      break;
    }
    }

    bool changes = false;
    for (unsigned i : floats) {
      Value v = op->getOperand(i);
      changes |= floatElement(v.getType()) != target ||
                 originalType(v) != v.getType();
    }
    if (!changes)
      return success();

    // The element type the op was written for (its first float operand's),
    // which its explicitly typed float results share.
    Type writtenElement =
        cast<RankedTensorType>(originalType(op->getOperand(floats.front())))
            .getElementType();
    for (unsigned i : floats)
      if (floatElement(op->getOperand(i).getType()) != target)
        convertOperand(op, i, target);

    SmallVector<Type> resultTypes;
    if (auto infer = dyn_cast<InferTypeOpInterface>(op)) {
      if (failed(infer.inferReturnTypes(
              op->getContext(), op->getLoc(), op->getOperands(),
              op->getRawDictionaryAttrs(), op->getPropertiesStorage(),
              op->getRegions(), resultTypes)))
        return op->emitError(kPassFlag)
               << ": cannot infer the result types after retyping";
    } else {
      for (Value r : op->getResults()) {
        FloatType t = floatElement(r.getType());
        resultTypes.push_back(t && t == writtenElement
                                  ? withElement(r.getType(), target)
                                  : r.getType());
      }
    }
    for (auto [r, type] : llvm::zip(op->getResults(), resultTypes))
      if (r.getType() != type) {
        original.try_emplace(r, r.getType());
        r.setType(type);
      }
    if (failed(mlir::verify(op, /*verifyRecursively=*/false)))
      return op->emitError(kPassFlag)
             << ": the op does not verify in " << target
             << " (a precision-policy bug: please report it)";
    return success();
  }

  func::FuncOp func;
  FloatType low, f32;
  /// Values computed from parameters and constants alone.
  DenseSet<Value> weights;
  /// Values whose type this pass changed, with their old type.
  DenseMap<Value, Type> original;
};

struct TfcAutoMixedPrecisionPass
    : public ::tfc::impl::TfcAutoMixedPrecisionPassBase<
          TfcAutoMixedPrecisionPass> {
  using TfcAutoMixedPrecisionPassBase::TfcAutoMixedPrecisionPassBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    std::optional<::tfc::Precision> p = ::tfc::parsePrecision(precision);
    if (!p) {
      module.emitError(kPassFlag)
          << ": unknown precision '" << precision << "' (expected "
          << ::tfc::precisionNames() << ")";
      return signalPassFailure();
    }
    if (*p == ::tfc::Precision::F32)
      return;
    if (*p == ::tfc::Precision::TF32) {
      module->setAttr(TfcDialect::kF32GemmComputeAttrName,
                      StringAttr::get(&getContext(), "tf32"));
      return;
    }
    FailureOr<SmallVector<func::FuncOp>> funcs = ::tfc::lookupFunctions(
        module, function, ::tfc::MissingFunction::Error, kPassFlag, "retype");
    if (failed(funcs))
      return signalPassFailure();
    auto low = cast<FloatType>(::tfc::lowPrecisionType(*p, &getContext()));
    for (func::FuncOp f : *funcs)
      if (failed(FunctionRetyper(f, low).run()))
        return signalPassFailure();
  }
};

} // namespace
