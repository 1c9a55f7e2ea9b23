//===- BuildTrainStep.cpp - --tfc-build-train-step ------------------------===//
//
// Builds @train_step from a loss function: the forward and backward of
// --tfc-autodiff, then (optionally) GradScaler-style unscaling with an
// inf/NaN check, global-norm clipping, and one optimizer op per parameter.
// Every parameter and state comes back as a result marked tfc.update, which
// the lowering writes over the argument in place, so the runtime keeps the
// whole training state on the device between steps.
//
//===----------------------------------------------------------------------===//

#include "passes/training/Passes.h"

#include "passes/autodiff/ReverseMode.h"

#include "dialects/tfc/TfcOps.h"
#include "dialects/tfc/TfcVjps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/StringSet.h"

#include <cmath>

namespace tfc {
#define GEN_PASS_DEF_TFCBUILDTRAINSTEPPASS
#include "passes/training/Passes.h.inc"
} // namespace tfc

using namespace mlir;
using namespace mlir::tfc;

namespace {

/// One argument of @train_step before the function exists.
struct ArgSpec {
  Type type;
  DictionaryAttr attrs;
};

/// A parameter or state argument with the value that replaces it.
struct Update {
  std::string name;
  unsigned arg;
  Value value;
};

struct TfcBuildTrainStepPass
    : public ::tfc::impl::TfcBuildTrainStepPassBase<TfcBuildTrainStepPass> {
  using TfcBuildTrainStepPassBase::TfcBuildTrainStepPassBase;

  void runOnOperation() override {
    if (failed(run()))
      signalPassFailure();
  }

private:
  static constexpr StringLiteral kEntry = "train_step";

  bool isAdam() const { return optimizer == "adam" || optimizer == "adamw"; }
  bool hasMomentumBuffer() const {
    return optimizer == "sgd" && momentum != 0.0;
  }

  LogicalResult checkOptions(ModuleOp module) {
    auto fail = [&](const Twine &message) {
      return module.emitError("--tfc-build-train-step: ") << message;
    };
    if (optimizer != "adamw" && optimizer != "adam" && optimizer != "sgd")
      return fail("unknown optimizer '" + optimizer +
                  "' (expected adamw, adam or sgd)");
    auto finiteNonNegative = [](double x) { return std::isfinite(x) && x >= 0; };
    if (isAdam() && !(beta1 >= 0 && beta1 < 1 && beta2 >= 0 && beta2 < 1))
      return fail("beta1 and beta2 must lie in [0, 1)");
    if (!finiteNonNegative(eps))
      return fail("eps must be non-negative and finite");
    if (weightDecay >= 0 ? !std::isfinite(weightDecay.getValue())
                         : weightDecay != -1.0)
      return fail("weight-decay must be non-negative and finite (or -1 for "
                  "the optimizer's default)");
    if (!finiteNonNegative(momentum))
      return fail("momentum must be non-negative and finite");
    if (nesterov && (optimizer != "sgd" || momentum == 0.0))
      return fail("nesterov needs optimizer=sgd and momentum > 0");
    if (!finiteNonNegative(maxGradNorm))
      return fail("max-grad-norm must be non-negative and finite (0: off)");
    if (lossScaling) {
      if (!(std::isfinite(initScale.getValue()) && initScale > 0))
        return fail("init-scale must be positive and finite");
      if (!(std::isfinite(growthFactor.getValue()) && growthFactor > 1))
        return fail("growth-factor must be finite and > 1");
      if (!(backoffFactor > 0 && backoffFactor < 1))
        return fail("backoff-factor must lie in (0, 1)");
      if (growthInterval < 1)
        return fail("growth-interval must be at least 1");
    }
    return success();
  }

  LogicalResult run() {
    ModuleOp module = getOperation();
    if (failed(checkOptions(module)))
      return failure();
    auto loss = module.lookupSymbol<func::FuncOp>(function);
    if (!loss)
      return module.emitError("--tfc-build-train-step: no func.func @")
             << function << " to train (choose one with function=<name>)";
    if (loss.isExternal() || !loss.getBody().hasOneBlock())
      return loss.emitError("--tfc-build-train-step: @")
             << loss.getName() << " must have a body of exactly one block";
    auto lossType = loss.getNumResults() == 1
                        ? dyn_cast<RankedTensorType>(loss.getResultTypes()[0])
                        : RankedTensorType();
    if (!lossType || lossType.getRank() != 0 ||
        !isa<FloatType>(lossType.getElementType()))
      return loss.emitError("--tfc-build-train-step: @")
             << loss.getName()
             << " must return one scalar loss (a 0-d floating-point tensor)";
    if (module.lookupSymbol(kEntry))
      return loss.emitError("--tfc-build-train-step: the module already has "
                            "a symbol @")
             << kEntry;

    MLIRContext *ctx = &getContext();
    Builder b(ctx);
    auto f32 = RankedTensorType::get({}, b.getF32Type());
    auto i64 = RankedTensorType::get({}, b.getI64Type());
    auto named = [&](StringRef key, StringRef name) {
      return b.getDictionaryAttr(b.getNamedAttr(key, b.getStringAttr(name)));
    };

    // The signature: params, their optimizer state, scalar state, lr, batch.
    SmallVector<ArgSpec> args;
    SmallVector<unsigned> lossParams, lossOthers;
    SmallVector<std::string> paramNames;
    for (unsigned i = 0, e = loss.getNumArguments(); i < e; ++i) {
      if (!loss.getArgAttr(i, TfcDialect::kParamAttrName)) {
        lossOthers.push_back(i);
        continue;
      }
      auto name = loss.getArgAttrOfType<StringAttr>(
          i, TfcDialect::kParamAttrName);
      lossParams.push_back(i);
      paramNames.push_back(name.str());
      args.push_back({loss.getArgumentTypes()[i],
                      named(TfcDialect::kParamAttrName, name)});
    }
    if (lossParams.empty())
      return loss.emitError("--tfc-build-train-step: @")
             << loss.getName()
             << " has no argument marked tfc.param: nothing to train";
    SmallVector<std::string> stateSuffixes;
    if (isAdam())
      stateSuffixes = {"exp_avg", "exp_avg_sq"};
    else if (hasMomentumBuffer())
      stateSuffixes = {"momentum_buffer"};
    for (auto [index, name] : llvm::enumerate(paramNames))
      for (const std::string &suffix : stateSuffixes)
        args.push_back({args[index].type,
                        named(TfcDialect::kStateAttrName, name + "." + suffix)});
    unsigned stepArg = args.size();
    args.push_back({i64, named(TfcDialect::kStateAttrName, "step")});
    unsigned scaleArg = args.size(), trackerArg = args.size() + 1;
    if (lossScaling) {
      args.push_back({f32, named(TfcDialect::kStateAttrName, "loss_scale")});
      args.push_back(
          {i64, named(TfcDialect::kStateAttrName, "growth_tracker")});
    }
    unsigned lrArg = args.size();
    args.push_back({f32, named(TfcDialect::kInputAttrName, "lr")});
    for (unsigned i : lossOthers) {
      DictionaryAttr attrs = loss.getArgAttrDict(i);
      if (!loss.getArgAttr(i, TfcDialect::kInputAttrName)) {
        NamedAttrList list(attrs);
        list.set(TfcDialect::kInputAttrName,
                 b.getStringAttr("arg" + std::to_string(i)));
        attrs = list.getDictionary(ctx);
      }
      args.push_back({loss.getArgumentTypes()[i], attrs});
    }
    // The runtime binds by name: a loss argument must not take a name the
    // train step gives to its own state or inputs.
    llvm::StringSet<> names;
    for (const ArgSpec &arg : args) {
      for (StringRef key : {TfcDialect::kParamAttrName,
                            TfcDialect::kInputAttrName,
                            TfcDialect::kStateAttrName}) {
        auto name = arg.attrs ? arg.attrs.getAs<StringAttr>(key) : StringAttr();
        if (name && !names.insert(name.getValue()).second)
          return loss.emitError("--tfc-build-train-step: the name '")
                 << name.getValue()
                 << "' of an argument of @" << loss.getName()
                 << " collides with a name of the train step's arguments";
      }
    }

    // The function, with the loss body cloned into it.
    SmallVector<Type> argTypes = llvm::map_to_vector(
        args, [](const ArgSpec &arg) { return arg.type; });
    OpBuilder moduleBuilder(loss);
    moduleBuilder.setInsertionPointAfter(loss);
    auto step = moduleBuilder.create<func::FuncOp>(
        loss.getLoc(), kEntry,
        b.getFunctionType(argTypes, SmallVector<Type>{lossType}));
    for (auto [index, arg] : llvm::enumerate(args))
      if (arg.attrs)
        step.setArgAttrs(index, arg.attrs);
    Block *block = step.addEntryBlock();
    IRMapping mapping;
    for (auto [index, lossIndex] : llvm::enumerate(lossParams))
      mapping.map(loss.getArgument(lossIndex), block->getArgument(index));
    for (auto [index, lossIndex] : llvm::enumerate(lossOthers))
      mapping.map(loss.getArgument(lossIndex),
                  block->getArgument(lrArg + 1 + index));
    OpBuilder builder = OpBuilder::atBlockEnd(block);
    for (Operation &op : loss.front())
      builder.clone(op, mapping);

    if (failed(buildBody(step, lossType, stepArg, scaleArg, trackerArg, lrArg,
                         paramNames, stateSuffixes))) {
      step.erase();
      return failure();
    }
    return success();
  }

  /// Differentiates, unscales, clips and applies the optimizer in `step`.
  LogicalResult buildBody(func::FuncOp step, RankedTensorType lossType,
                          unsigned stepArg, unsigned scaleArg,
                          unsigned trackerArg, unsigned lrArg,
                          ArrayRef<std::string> paramNames,
                          ArrayRef<std::string> stateSuffixes) {
    Block &block = step.front();
    auto ret = cast<func::ReturnOp>(block.getTerminator());
    Location loc = ret.getLoc();
    OpBuilder builder(ret);
    VjpBuilder v(builder, loc);
    Type f32 = builder.getF32Type();
    Type i64 = builder.getI64Type();
    auto intScalar = [&](int64_t value) -> Value {
      auto type = RankedTensorType::get({}, i64);
      return builder.create<ConstantOp>(
          loc, DenseElementsAttr::get(type, builder.getIntegerAttr(i64, value)));
    };

    // Loss scaling: the loss times the scale is what gets differentiated. A
    // zero scale is the zero-filled state of the first step: init-scale.
    Value plainLoss = ret.getOperand(0);
    Value scale;
    if (lossScaling) {
      Value stored = step.getArgument(scaleArg);
      Value zero = v.scalar(f32, 0.0);
      scale = v.select(v.compare(CompareDirection::eq, stored, zero),
                       v.scalar(f32, initScale), stored);
      ret.setOperand(0, v.mul(plainLoss,
                              v.convert(scale, lossType.getElementType())));
    }

    unsigned numParams = paramNames.size();
    SmallVector<unsigned> params = llvm::to_vector(llvm::seq<unsigned>(0, numParams));
    if (failed(::tfc::appendGradients(step, params)))
      return failure();
    builder.setInsertionPoint(ret);
    SmallVector<Value> grads = llvm::to_vector(ret.getOperands().drop_front());

    Value foundInf;
    if (lossScaling) {
      // GradScaler multiplies by the f32 reciprocal of the scale and flags a
      // non-finite gradient (checked before unscaling, as its kernel does):
      // x * 0 is 0 for finite x and NaN otherwise, so one sum finds any.
      Value inv = v.div(v.scalar(f32, 1.0), scale);
      Value bad = v.scalar(f32, 0.0);
      for (Value &grad : grads) {
        Type elt = tensorTypeOf(grad).getElementType();
        Value probe = v.convert(v.mul(grad, v.scalar(elt, 0.0)), f32);
        bad = v.add(bad, sumAll(builder, loc, probe));
        grad = v.mul(grad, v.convert(inv, elt));
      }
      foundInf = v.compare(CompareDirection::ne, bad, v.scalar(f32, 0.0));
    }

    if (maxGradNorm > 0) {
      // torch.nn.utils.clip_grad_norm_: one norm over all gradients.
      Value total = v.scalar(f32, 0.0);
      for (Value grad : grads) {
        Value g = v.convert(grad, f32);
        total = v.add(total, sumAll(builder, loc, v.mul(g, g)));
      }
      Value norm = builder.create<SqrtOp>(loc, total.getType(), total);
      Value coef = v.div(v.scalar(f32, maxGradNorm),
                         v.add(norm, v.scalar(f32, 1e-6)));
      Value clamped = builder.create<MinimumOp>(loc, coef.getType(), coef,
                                                v.scalar(f32, 1.0));
      for (Value &grad : grads)
        grad = v.mul(grad, v.convert(clamped, tensorTypeOf(grad).getElementType()));
    }

    Value oldStep = step.getArgument(stepArg);
    Value newStep = v.add(oldStep, intScalar(1));
    Value lr = step.getArgument(lrArg);
    double baseDecay = weightDecay >= 0 ? weightDecay.getValue()
                                        : (optimizer == "adamw" ? 1e-2 : 0.0);
    SmallVector<Update> updates;
    auto argName = [&](unsigned arg) {
      for (StringRef key :
           {TfcDialect::kParamAttrName, TfcDialect::kStateAttrName})
        if (auto name = step.getArgAttrOfType<StringAttr>(arg, key))
          return name.str();
      return std::string();
    };
    auto addUpdate = [&](unsigned arg, Value value) {
      updates.push_back({argName(arg), arg, value});
    };
    SmallVector<Update> stateUpdates;
    unsigned numStates = stateSuffixes.size();
    for (unsigned i = 0; i < numParams; ++i) {
      Value param = step.getArgument(i);
      unsigned firstState = numParams + i * numStates;
      // Parameter groups as GPT-2/nanoGPT and Hugging Face train them: biases
      // and norm weights (rank < 2) are not decayed unless decay-all is set.
      double decay =
          decayAll || tensorTypeOf(param).getRank() >= 2 ? baseDecay : 0.0;
      if (isAdam()) {
        Value m = step.getArgument(firstState);
        Value s = step.getArgument(firstState + 1);
        Operation *op;
        if (optimizer == "adamw")
          op = builder.create<AdamWOp>(
              loc, param, grads[i], m, s, lr, newStep, APFloat(beta1.getValue()),
              APFloat(beta2.getValue()), APFloat(eps.getValue()),
              APFloat(decay));
        else
          op = builder.create<AdamOp>(
              loc, param, grads[i], m, s, lr, newStep, APFloat(beta1.getValue()),
              APFloat(beta2.getValue()), APFloat(eps.getValue()),
              APFloat(decay));
        addUpdate(i, op->getResult(0));
        stateUpdates.push_back({argName(firstState), firstState, op->getResult(1)});
        stateUpdates.push_back(
            {argName(firstState + 1), firstState + 1, op->getResult(2)});
        continue;
      }
      Value buffer = hasMomentumBuffer() ? step.getArgument(firstState) : Value();
      auto sgd = builder.create<SgdOp>(
          loc, param, grads[i], lr, newStep, buffer,
          builder.getF64FloatAttr(momentum), builder.getF64FloatAttr(0.0),
          builder.getF64FloatAttr(decay),
          nesterov ? builder.getUnitAttr() : UnitAttr(), UnitAttr());
      addUpdate(i, sgd.getParamOut());
      if (buffer)
        stateUpdates.push_back(
            {argName(firstState), firstState, sgd.getMomentumBufferOut()});
    }
    updates.append(stateUpdates.begin(), stateUpdates.end());
    addUpdate(stepArg, newStep);

    if (lossScaling) {
      // A skipped step keeps every parameter and state, the count included.
      for (Update &update : updates)
        update.value =
            v.select(foundInf, step.getArgument(update.arg), update.value);
      // GradScaler's update: back off on overflow; grow after
      // growth-interval clean steps in a row.
      Value tracker = step.getArgument(trackerArg);
      Value counted = v.add(tracker, intScalar(1));
      Value grow = v.compare(CompareDirection::eq, counted,
                             intScalar(growthInterval));
      Value cleanScale =
          v.select(grow, v.mul(scale, v.scalar(f32, growthFactor)), scale);
      Value cleanTracker = v.select(grow, intScalar(0), counted);
      addUpdate(scaleArg,
                v.select(foundInf, v.mul(scale, v.scalar(f32, backoffFactor)),
                         cleanScale));
      addUpdate(trackerArg, v.select(foundInf, intScalar(0), cleanTracker));
    }

    SmallVector<Value> results{plainLoss};
    SmallVector<DictionaryAttr> resultAttrs;
    auto named = [&](StringRef key, StringRef name) {
      return builder.getDictionaryAttr(
          builder.getNamedAttr(key, builder.getStringAttr(name)));
    };
    resultAttrs.push_back(named(TfcDialect::kOutputAttrName, "loss"));
    for (const Update &update : updates) {
      results.push_back(update.value);
      resultAttrs.push_back(named(TfcDialect::kUpdateAttrName, update.name));
    }
    if (foundInf) {
      results.push_back(foundInf);
      resultAttrs.push_back(named(TfcDialect::kOutputAttrName, "found_inf"));
    }
    ret->setOperands(results);
    step.setFunctionType(builder.getFunctionType(
        step.getArgumentTypes(), ValueRange(results).getTypes()));
    step.setAllResultAttrs(resultAttrs);
    return success();
  }

  /// The sum of every element of `x` as a 0-d tensor.
  static Value sumAll(OpBuilder &builder, Location loc, Value x) {
    auto type = tensorTypeOf(x);
    if (type.getRank() == 0)
      return x;
    SmallVector<int64_t> dims = llvm::to_vector(llvm::seq<int64_t>(0, type.getRank()));
    return builder.create<ReduceSumOp>(
        loc, RankedTensorType::get({}, type.getElementType()), x,
        builder.getDenseI64ArrayAttr(dims), UnitAttr());
  }
};

} // namespace
