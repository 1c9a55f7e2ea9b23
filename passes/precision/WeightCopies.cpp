//===- WeightCopies.cpp - --tfc-weight-copies -----------------------------===//
//
// A copy chain is a path of single-operand ops (convert, pad, reshape,
// transpose) from a parameter to a value that the rest of the function
// reads. Chains are matched across the step functions by their ops (names,
// attributes, types), so @accumulate_step's reads and @apply_step's update
// meet in one state. Each chain is kept as a template (its ops cloned into a
// detached block) and replayed on the updated parameter and in
// @refresh_weight_copies; the replays are the very ops the forward ran, so
// a copy is bit for bit what the forward computed before.
//
//===----------------------------------------------------------------------===//

#include "passes/precision/Passes.h"

#include "passes/FunctionList.h"

#include "dialects/tfc/TfcOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/StringExtras.h"

namespace tfc {
#define GEN_PASS_DEF_TFCWEIGHTCOPIESPASS
#include "passes/precision/Passes.h.inc"
} // namespace tfc

using namespace mlir;
using namespace mlir::tfc;

namespace {

constexpr llvm::StringLiteral kRefreshFunction = "refresh_weight_copies";

bool isCopyOp(Operation *op) {
  return isa<ConvertOp, PadOp, ReshapeOp, TransposeOp>(op) &&
         op->getNumOperands() == 1 && op->getNumResults() == 1;
}

/// One kept copy: the chain's ops as a template block whose argument stands
/// for the parameter.
struct Chain {
  std::string param;   ///< the parameter's tfc.param name
  std::string state;   ///< the copy's tfc.state name
  Type paramType;
  Type type;           ///< the copy's type
  std::string signature;
  /// The ops, in a function of the pass's scratch module whose argument is
  /// the parameter.
  mutable func::FuncOp templ;
  Value result; ///< in `templ`

  /// Clones the chain after `b`'s insertion point, on `param`.
  Value replay(OpBuilder &b, Value param) const {
    IRMapping map;
    Block &block = templ.getBody().front();
    map.map(block.getArgument(0), param);
    for (Operation &op : block)
      b.clone(op, map);
    return map.lookup(result);
  }
};

std::string signatureOf(ArrayRef<Operation *> ops) {
  std::string text;
  llvm::raw_string_ostream os(text);
  for (Operation *op : ops) {
    os << op->getName() << " " << op->getAttrDictionary() << " "
       << op->getResult(0).getType() << ";";
    if (auto props = op->getPropertiesAsAttribute())
      os << props << ";";
  }
  return text;
}

std::string typeSuffix(Type element) {
  if (element.isBF16())
    return "bf16";
  if (element.isF16())
    return "f16";
  std::string text;
  llvm::raw_string_ostream os(text);
  os << element;
  return text;
}

struct TfcWeightCopiesPass
    : public ::tfc::impl::TfcWeightCopiesPassBase<TfcWeightCopiesPass> {
  using TfcWeightCopiesPassBase::TfcWeightCopiesPassBase;
  /// Clones (for pass managers) start without chains.
  TfcWeightCopiesPass(const TfcWeightCopiesPass &other)
      : TfcWeightCopiesPassBase(other) {}

  void runOnOperation() override {
    ModuleOp module = getOperation();
    chains.clear();
    scratch = ModuleOp::create(module.getLoc());
    if (module.lookupSymbol(kRefreshFunction)) {
      module.emitError("--tfc-weight-copies: the module already has @")
          << kRefreshFunction;
      return signalPassFailure();
    }
    SmallVector<func::FuncOp> funcs = *::tfc::lookupFunctions(
        module, function, ::tfc::MissingFunction::Skip);

    // 1. The chains every function reads, as templates.
    for (func::FuncOp f : funcs)
      collectChains(f);
    // 2. Each function reads its copies from state and updates them.
    for (func::FuncOp f : funcs)
      rewrite(f);
    // 3. The entry that computes the copies from the parameters.
    buildRefresh(module);
  }

  /// The chains from each parameter of `f` to a value read by anything
  /// but a copy op, holding a convert or a pad.
  void collectChains(func::FuncOp f) {
    for (BlockArgument arg : f.getArguments()) {
      auto name = f.getArgAttrOfType<StringAttr>(arg.getArgNumber(),
                                                 TfcDialect::kParamAttrName);
      if (!name)
        continue;
      SmallVector<Operation *> path;
      walk(arg, name.getValue(), path);
    }
  }

  void walk(Value v, StringRef param, SmallVector<Operation *> &path) {
    bool readElsewhere = false;
    for (Operation *user : v.getUsers()) {
      if (!isCopyOp(user)) {
        readElsewhere = true;
        continue;
      }
      path.push_back(user);
      walk(user->getResult(0), param, path);
      path.pop_back();
    }
    if (!readElsewhere || path.empty() ||
        llvm::none_of(path, [](Operation *op) {
          return isa<ConvertOp, PadOp>(op);
        }))
      return;
    std::string signature = signatureOf(path);
    for (Chain &c : chains)
      if (c.param == param && c.signature == signature)
        return;
    Chain c;
    c.param = param.str();
    c.signature = signature;
    Value root = path.front()->getOperand(0);
    c.paramType = root.getType();
    c.type = v.getType();
    OpBuilder scratchBuilder = OpBuilder::atBlockEnd(scratch->getBody());
    c.templ = scratchBuilder.create<func::FuncOp>(
        root.getLoc(), "chain", scratchBuilder.getFunctionType({c.paramType}, {}));
    Block *block = c.templ.addEntryBlock();
    IRMapping map;
    map.map(root, block->getArgument(0));
    OpBuilder b = OpBuilder::atBlockEnd(block);
    for (Operation *op : path)
      b.clone(*op, map);
    c.result = map.lookup(v);
    // "<P>.bf16", with the shape when padding changed it, and a counter
    // when another chain of P already has the name.
    auto type = cast<RankedTensorType>(c.type);
    std::string stateName = c.param + "." + typeSuffix(type.getElementType());
    if (type.getShape() != cast<RankedTensorType>(c.paramType).getShape()) {
      stateName += ".";
      llvm::raw_string_ostream os(stateName);
      llvm::interleave(type.getShape(), os, "x");
    }
    std::string unique = stateName;
    for (int i = 1; llvm::any_of(chains, [&](const Chain &o) {
           return o.state == unique;
         });
         ++i)
      unique = stateName + "." + std::to_string(i);
    c.state = unique;
    chains.push_back(std::move(c));
  }

  /// Where new state arguments go: after the last param or state argument.
  static unsigned stateInsertionIndex(func::FuncOp f) {
    unsigned index = 0;
    for (unsigned i = 0; i < f.getNumArguments(); ++i)
      if (f.getArgAttr(i, TfcDialect::kParamAttrName) ||
          f.getArgAttr(i, TfcDialect::kStateAttrName))
        index = i + 1;
    return index;
  }

  void rewrite(func::FuncOp f) {
    // Which chain each boundary value of `f` is, found as in collectChains.
    llvm::MapVector<Chain *, SmallVector<Value>> reads;
    DenseMap<StringRef, Value> params;
    for (BlockArgument arg : f.getArguments())
      if (auto name = f.getArgAttrOfType<StringAttr>(
              arg.getArgNumber(), TfcDialect::kParamAttrName))
        params[name.getValue()] = arg;
    for (auto [name, arg] : params) {
      SmallVector<Operation *> path;
      findReads(arg, name, path, reads);
    }
    // The parameters' new values, by name.
    DenseMap<StringRef, unsigned> updates;
    auto ret = cast<func::ReturnOp>(f.getBody().front().getTerminator());
    for (unsigned i = 0; i < f.getNumResults(); ++i)
      if (auto name = f.getResultAttrOfType<StringAttr>(
              i, TfcDialect::kUpdateAttrName))
        updates[name.getValue()] = i;

    OpBuilder b(f.getContext());
    for (Chain &c : chains) {
      bool read = reads.count(&c), updated = updates.count(c.param);
      if (!read && !updated)
        continue;
      unsigned index = stateInsertionIndex(f);
      f.insertArgument(index, c.type,
                       b.getDictionaryAttr(b.getNamedAttr(
                           TfcDialect::kStateAttrName,
                           b.getStringAttr(c.state))),
                       f.getLoc());
      Value copy = f.getArgument(index);
      if (read)
        for (Value v : reads[&c])
          v.replaceAllUsesWith(copy);
      if (updated) {
        b.setInsertionPoint(ret);
        Value fresh = c.replay(b, ret.getOperand(updates.lookup(c.param)));
        unsigned result = f.getNumResults();
        f.insertResult(result, c.type,
                       b.getDictionaryAttr(b.getNamedAttr(
                           TfcDialect::kUpdateAttrName,
                           b.getStringAttr(c.state))));
        ret->insertOperands(result, fresh);
      }
    }
    // The chains' ops no one reads now.
    bool erased = true;
    while (erased) {
      SmallVector<Operation *> dead;
      for (Operation &op : f.getBody().front().without_terminator())
        if (isCopyOp(&op) && op.use_empty())
          dead.push_back(&op);
      for (Operation *op : dead)
        op->erase();
      erased = !dead.empty();
    }
  }

  void findReads(Value v, StringRef param, SmallVector<Operation *> &path,
                 llvm::MapVector<Chain *, SmallVector<Value>> &reads) {
    for (Operation *user : v.getUsers())
      if (isCopyOp(user)) {
        path.push_back(user);
        findReads(user->getResult(0), param, path, reads);
        path.pop_back();
      }
    if (path.empty())
      return;
    std::string signature = signatureOf(path);
    for (Chain &c : chains)
      if (c.param == param && c.signature == signature)
        reads[&c].push_back(v);
  }

  void buildRefresh(ModuleOp module) {
    OpBuilder b = OpBuilder::atBlockEnd(module.getBody());
    Location loc = module.getLoc();
    SmallVector<Type> argTypes, resultTypes;
    SmallVector<Attribute> argAttrs, resultAttrs;
    llvm::MapVector<StringRef, unsigned> paramIndex;
    for (Chain &c : chains)
      if (paramIndex.insert({c.param, argTypes.size()}).second) {
        argTypes.push_back(c.paramType);
        argAttrs.push_back(b.getDictionaryAttr(b.getNamedAttr(
            TfcDialect::kParamAttrName, b.getStringAttr(c.param))));
      }
    for (Chain &c : chains) {
      argTypes.push_back(c.type);
      argAttrs.push_back(b.getDictionaryAttr(b.getNamedAttr(
          TfcDialect::kStateAttrName, b.getStringAttr(c.state))));
      resultTypes.push_back(c.type);
      resultAttrs.push_back(b.getDictionaryAttr(b.getNamedAttr(
          TfcDialect::kUpdateAttrName, b.getStringAttr(c.state))));
    }
    auto refresh = b.create<func::FuncOp>(
        loc, kRefreshFunction, b.getFunctionType(argTypes, resultTypes));
    refresh.setAllArgAttrs(argAttrs);
    refresh.setAllResultAttrs(resultAttrs);
    refresh->setAttr(TfcDialect::kRefreshAttrName, b.getUnitAttr());
    Block *body = refresh.addEntryBlock();
    b.setInsertionPointToEnd(body);
    SmallVector<Value> results;
    for (Chain &c : chains)
      results.push_back(
          c.replay(b, body->getArgument(paramIndex.lookup(c.param))));
    b.create<func::ReturnOp>(loc, results);
  }

  std::vector<Chain> chains;
  /// Holds the chains' templates while the pass runs.
  OwningOpRef<ModuleOp> scratch;
};

} // namespace
