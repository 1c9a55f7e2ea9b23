//===- TfcDialect.cpp - the tfc graph-level dialect -----------------------===//

#include "dialects/tfc/TfcDialect.h"

#include "dialects/tfc/TfcOps.h"
#include "dialects/tfc/TfcVjps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/TypeSwitch.h"

#include <cmath>
#include <memory>
#include <mutex>

using namespace mlir;
using namespace mlir::tfc;

#include "dialects/tfc/TfcDialect.cpp.inc"
#include "dialects/tfc/TfcEnums.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "dialects/tfc/TfcAttrs.cpp.inc"

namespace {

/// Where each tfc name first occurs in a function's argument or result
/// attributes, for the verifiers below: checking every argument's name
/// against all earlier ones made verifying a step of n parameters (with
/// their optimizer state, about 3n arguments and results) cost n^2, after
/// every pass.
struct NameIndex {
  /// Arguments: the first index naming each name under tfc.param,
  /// tfc.input or tfc.state; under tfc.param; under tfc.param or
  /// tfc.state.
  llvm::DenseMap<StringAttr, unsigned> firstArg, firstParam, firstUpdatable;
  /// Results: the first index of each (key, name).
  llvm::DenseMap<std::pair<StringAttr, StringAttr>, unsigned> firstResult;
};

/// The indices of the attribute arrays verified, by array (immutable and
/// uniqued, so an entry never goes stale). It lives in the dialect, so it
/// dies with the context; bounded, and locked (functions are verified in
/// parallel).
class NameIndexCache : public DialectInterface::Base<NameIndexCache> {
public:
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(NameIndexCache)

  explicit NameIndexCache(Dialect *dialect) : Base(dialect) {}

  /// The index of argument attributes `argAttrs` (keys kParamAttrName...).
  std::shared_ptr<const NameIndex> ofArguments(ArrayAttr argAttrs) {
    return get(argAttrs, [&](NameIndex &index) {
      MLIRContext *context = argAttrs.getContext();
      auto param = StringAttr::get(context, TfcDialect::kParamAttrName);
      auto input = StringAttr::get(context, TfcDialect::kInputAttrName);
      auto state = StringAttr::get(context, TfcDialect::kStateAttrName);
      for (auto [i, attrs] : llvm::enumerate(argAttrs)) {
        auto dict = dyn_cast_or_null<DictionaryAttr>(attrs);
        if (!dict)
          continue;
        for (StringAttr key : {param, input, state}) {
          auto name = dict.getAs<StringAttr>(key);
          if (!name)
            continue;
          index.firstArg.try_emplace(name, i);
          if (key != input)
            index.firstUpdatable.try_emplace(name, i);
          if (key == param)
            index.firstParam.try_emplace(name, i);
        }
      }
    });
  }

  /// The index of result attributes `resultAttrs`.
  std::shared_ptr<const NameIndex> ofResults(ArrayAttr resultAttrs) {
    return get(resultAttrs, [&](NameIndex &index) {
      for (auto [i, attrs] : llvm::enumerate(resultAttrs))
        if (auto dict = dyn_cast_or_null<DictionaryAttr>(attrs))
          for (NamedAttribute entry : dict)
            if (auto name = dyn_cast<StringAttr>(entry.getValue()))
              index.firstResult.try_emplace({entry.getName(), name}, i);
    });
  }

private:
  std::shared_ptr<const NameIndex>
  get(ArrayAttr attrs, llvm::function_ref<void(NameIndex &)> build) {
    if (!attrs) {
      static const auto none = std::make_shared<const NameIndex>();
      return none;
    }
    std::lock_guard<std::mutex> lock(mutex);
    if (auto found = indices.find(attrs); found != indices.end())
      return found->second;
    if (indices.size() >= kMaxEntries)
      indices.clear();
    auto index = std::make_shared<NameIndex>();
    build(*index);
    indices[attrs] = index;
    return index;
  }

  static constexpr size_t kMaxEntries = 64;
  std::mutex mutex;
  llvm::DenseMap<Attribute, std::shared_ptr<const NameIndex>> indices;
};

std::shared_ptr<const NameIndex> argumentNames(FunctionOpInterface func) {
  return func->getContext()
      ->getLoadedDialect<TfcDialect>()
      ->getRegisteredInterface<NameIndexCache>()
      ->ofArguments(func.getArgAttrsAttr());
}

std::shared_ptr<const NameIndex> resultNames(FunctionOpInterface func) {
  return func->getContext()
      ->getLoadedDialect<TfcDialect>()
      ->getRegisteredInterface<NameIndexCache>()
      ->ofResults(func.getResAttrsAttr());
}

} // namespace

void TfcDialect::initialize() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "dialects/tfc/TfcAttrs.cpp.inc"
      >();
  registerElementwiseOps();
  registerShapeOps();
  registerReductionOps();
  registerLinalgOps();
  registerNNOps();
  registerOptimizerOps();
  registerFusionOps();
  registerGradOps();
  // After every op group: the VJP models attach to registered ops.
  attachDifferentiableInterfaces(getContext());
  addInterfaces<NameIndexCache>();
}

Operation *TfcDialect::materializeConstant(OpBuilder &builder, Attribute value,
                                           Type type, Location loc) {
  auto elements = dyn_cast<ElementsAttr>(value);
  if (!elements || elements.getType() != type)
    return nullptr;
  return builder.create<ConstantOp>(loc, elements);
}

/// tfc.lr_scale / tfc.weight_decay: a finite f64 >= 0 on a tfc.param
/// function argument.
static LogicalResult verifyParamGroupAttribute(Operation *op,
                                               unsigned argIndex,
                                               NamedAttribute attribute) {
  StringRef attrName = attribute.getName().strref();
  auto value = dyn_cast<FloatAttr>(attribute.getValue());
  if (!value || !value.getType().isF64() ||
      !std::isfinite(value.getValueAsDouble()) ||
      value.getValueAsDouble() < 0)
    return op->emitError() << "'" << attrName << "' on argument #" << argIndex
                           << " must be a finite f64 >= 0, got "
                           << attribute.getValue();
  auto func = dyn_cast<FunctionOpInterface>(op);
  if (!func || !func.getArgAttr(argIndex, TfcDialect::kParamAttrName))
    return op->emitError() << "'" << attrName << "' on argument #" << argIndex
                           << " needs a '" << TfcDialect::kParamAttrName
                           << "' beside it (a parameter group's setting)";
  return success();
}

/// `tfc.param` and `tfc.input` name function arguments the way a PyTorch
/// state dict and batch do; the runtime binds tensors by these names, so
/// they must be non-empty and unique within the function.
LogicalResult TfcDialect::verifyRegionArgAttribute(Operation *op,
                                                   unsigned regionIndex,
                                                   unsigned argIndex,
                                                   NamedAttribute attribute) {
  StringRef attrName = attribute.getName().strref();
  if (attrName == kLrScaleAttrName || attrName == kWeightDecayAttrName)
    return verifyParamGroupAttribute(op, argIndex, attribute);
  if (attrName != kParamAttrName && attrName != kInputAttrName &&
      attrName != kStateAttrName)
    return op->emitError() << "unknown tfc argument attribute '" << attrName
                           << "' (expected '" << kParamAttrName << "', '"
                           << kInputAttrName << "', '" << kStateAttrName
                           << "', '" << kLrScaleAttrName << "' or '"
                           << kWeightDecayAttrName << "')";
  auto name = dyn_cast<StringAttr>(attribute.getValue());
  if (!name || name.getValue().empty())
    return op->emitError() << "'" << attrName << "' on argument #" << argIndex
                           << " must be a non-empty string";
  // Names travel into safetensors headers, manifests and error messages as
  // text: no control characters (a NUL would cut them short), no DEL.
  for (auto [pos, c] : llvm::enumerate(name.getValue()))
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f)
      return op->emitError()
             << "'" << attrName << "' on argument #" << argIndex
             << " has the control character 0x"
             << llvm::hexdigit(static_cast<unsigned char>(c) >> 4, true)
             << llvm::hexdigit(c & 0xf, true) << " at byte " << pos
             << "; names must be printable";
  auto func = dyn_cast<FunctionOpInterface>(op);
  if (!func || regionIndex != 0)
    return op->emitError() << "'" << attrName
                           << "' is only valid on function arguments";
  Type argType = func.getArgumentTypes()[argIndex];
  if (attrName == kParamAttrName) {
    auto tensor = dyn_cast<RankedTensorType>(argType);
    if (!tensor || !isa<FloatType>(tensor.getElementType()))
      return op->emitError() << "parameter '" << name.getValue()
                             << "' (argument #" << argIndex
                             << ") must be a floating-point tensor, got "
                             << argType;
  }
  std::shared_ptr<const NameIndex> names = argumentNames(func);
  if (auto first = names->firstArg.find(name);
      first != names->firstArg.end() && first->second < argIndex)
    return op->emitError() << "argument #" << argIndex << " reuses the name '"
                           << name.getValue() << "' of argument #"
                           << first->second;
  return success();
}

/// `tfc.update` and `tfc.output` name the results of a training step: an
/// update is written over the param/state argument it names, so that
/// argument must exist with the result's type, and each is updated once.
LogicalResult TfcDialect::verifyOperationAttribute(Operation *op,
                                                   NamedAttribute attribute) {
  StringRef attrName = attribute.getName().strref();
  if (attrName == kPadFromAttrName) {
    auto dims = dyn_cast<DenseI64ArrayAttr>(attribute.getValue());
    if (!isa<MatmulOp>(op) || !dims || dims.size() != 3 ||
        llvm::any_of(dims.asArrayRef(), [](int64_t d) { return d < 1; }))
      return op->emitError() << "'" << attrName
                             << "' must be three positive sizes [M, N, K] on "
                                "a tfc.matmul";
    return success();
  }
  if (attrName == kRecomputedAttrName) {
    if (!isa<UnitAttr>(attribute.getValue()))
      return op->emitError() << "'" << attrName << "' must be a unit attribute";
    return success();
  }
  if (attrName == kRefreshAttrName ||
      attrName == kOptimizerInBackwardAttrName) {
    if (!isa<FunctionOpInterface>(op) || !isa<UnitAttr>(attribute.getValue()))
      return op->emitError() << "'" << attrName
                             << "' must be a unit attribute on a function";
    return success();
  }
  if (attrName == kLossSeedAttrName) {
    auto constant = dyn_cast<ConstantOp>(op);
    auto type = constant ? dyn_cast<RankedTensorType>(constant.getType())
                         : RankedTensorType();
    if (!type || type.getRank() != 0 || !isa<UnitAttr>(attribute.getValue()))
      return op->emitError() << "'" << attrName
                             << "' must be a unit attribute on a 0-d "
                                "tfc.constant";
    return success();
  }
  if (attrName == kSavedActivationBytesAttrName) {
    auto bytes = dyn_cast<IntegerAttr>(attribute.getValue());
    if (!(isa<FunctionOpInterface>(op) ||
          op->getName().getStringRef() == "tfcrt.entry") ||
        !bytes || bytes.getInt() < 0)
      return op->emitError() << "'" << attrName
                             << "' must be a non-negative integer on a "
                                "function or a tfcrt.entry";
    return success();
  }
  if (attrName == kStepStagesAttrName) {
    auto stages = dyn_cast<ArrayAttr>(attribute.getValue());
    if (!isa<FunctionOpInterface>(op) || !stages ||
        llvm::any_of(stages, [](Attribute a) { return !isa<StringAttr>(a); }))
      return op->emitError() << "'" << attrName
                             << "' must be an array of stage names on a "
                                "function";
    return success();
  }
  if (attrName == kCheckpointBlocksAttrName) {
    auto blocks = dyn_cast<DictionaryAttr>(attribute.getValue());
    if (!isa<ModuleOp>(op) || !blocks ||
        llvm::any_of(blocks, [](NamedAttribute entry) {
          auto index = dyn_cast<IntegerAttr>(entry.getValue());
          return !index || index.getInt() < -1;
        }))
      return op->emitError() << "'" << attrName
                             << "' must be a dictionary from parameter names "
                                "to block indices (>= -1) on the module";
    return success();
  }
  if (attrName != kF32GemmComputeAttrName)
    return op->emitError() << "unknown tfc attribute '" << attrName
                           << "' on an operation (expected '"
                           << kF32GemmComputeAttrName << "' or '"
                           << kCheckpointBlocksAttrName << "' on the module, '"
                           << kPadFromAttrName << "' on a tfc.matmul, '"
                           << kRefreshAttrName << "' or '"
                           << kOptimizerInBackwardAttrName
                           << "' on a function, '"
                           << kSavedActivationBytesAttrName
                           << "' on a function or entry, or '"
                           << kRecomputedAttrName
                           << "'; between the train-step stages also '"
                           << kStepStagesAttrName << "' on a function and '"
                           << kLossSeedAttrName << "' on a tfc.constant)";
  auto value = dyn_cast<StringAttr>(attribute.getValue());
  if (!isa<ModuleOp>(op) || !value || value.getValue() != "tf32")
    return op->emitError() << "'" << attrName
                           << "' must be the string \"tf32\" on the module";
  return success();
}

LogicalResult TfcDialect::verifyRegionResultAttribute(Operation *op,
                                                      unsigned regionIndex,
                                                      unsigned resultIndex,
                                                      NamedAttribute attribute) {
  StringRef attrName = attribute.getName().strref();
  if (attrName != kUpdateAttrName && attrName != kOutputAttrName &&
      attrName != kGradAttrName)
    return op->emitError() << "unknown tfc result attribute '" << attrName
                           << "' (expected '" << kUpdateAttrName << "', '"
                           << kOutputAttrName << "' or '" << kGradAttrName
                           << "')";
  auto name = dyn_cast<StringAttr>(attribute.getValue());
  if (!name || name.getValue().empty())
    return op->emitError() << "'" << attrName << "' on result #"
                           << resultIndex << " must be a non-empty string";
  auto func = dyn_cast<FunctionOpInterface>(op);
  if (!func || regionIndex != 0)
    return op->emitError() << "'" << attrName
                           << "' is only valid on function results";
  std::shared_ptr<const NameIndex> results = resultNames(func);
  if (auto first = results->firstResult.find({attribute.getName(), name});
      first != results->firstResult.end() && first->second < resultIndex)
    return op->emitError() << "result #" << resultIndex << " reuses the '"
                           << attrName << "' name '" << name.getValue()
                           << "' of result #" << first->second;
  if (attrName == kOutputAttrName)
    return success();
  // An update names the param or state it overwrites, a gradient its
  // parameter; either has that argument's type.
  bool grad = attrName == kGradAttrName;
  StringRef verb = grad ? "is the gradient of" : "updates";
  std::shared_ptr<const NameIndex> args = argumentNames(func);
  const auto &named = grad ? args->firstParam : args->firstUpdatable;
  if (auto arg = named.find(name); arg != named.end()) {
    Type argType = func.getArgumentTypes()[arg->second];
    Type resultType = func.getResultTypes()[resultIndex];
    if (argType != resultType)
      return op->emitError()
             << "result #" << resultIndex << " " << verb << " '"
             << name.getValue() << "' of type " << argType
             << " with a value of type " << resultType;
    return success();
  }
  return op->emitError() << "result #" << resultIndex << " " << verb << " '"
                         << name.getValue() << "', which names no "
                         << (grad ? "tfc.param" : "tfc.param or tfc.state")
                         << " argument";
}
