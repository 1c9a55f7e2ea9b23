//===- TfcDialect.cpp - the tfc graph-level dialect -----------------------===//

#include "dialects/tfc/TfcDialect.h"
#include "dialects/tfc/TfcOps.h"
#include "dialects/tfc/TfcVjps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::tfc;

#include "dialects/tfc/TfcDialect.cpp.inc"
#include "dialects/tfc/TfcEnums.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "dialects/tfc/TfcAttrs.cpp.inc"

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
}

Operation *TfcDialect::materializeConstant(OpBuilder &builder, Attribute value,
                                           Type type, Location loc) {
  auto elements = dyn_cast<ElementsAttr>(value);
  if (!elements || elements.getType() != type)
    return nullptr;
  return builder.create<ConstantOp>(loc, elements);
}

/// `tfc.param` and `tfc.input` name function arguments the way a PyTorch
/// state dict and batch do; the runtime binds tensors by these names, so
/// they must be non-empty and unique within the function.
LogicalResult TfcDialect::verifyRegionArgAttribute(Operation *op,
                                                   unsigned regionIndex,
                                                   unsigned argIndex,
                                                   NamedAttribute attribute) {
  StringRef attrName = attribute.getName().strref();
  if (attrName != kParamAttrName && attrName != kInputAttrName)
    return op->emitError() << "unknown tfc argument attribute '" << attrName
                           << "' (expected '" << kParamAttrName << "' or '"
                           << kInputAttrName << "')";
  auto name = dyn_cast<StringAttr>(attribute.getValue());
  if (!name || name.getValue().empty())
    return op->emitError() << "'" << attrName << "' on argument #" << argIndex
                           << " must be a non-empty string";
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
  for (unsigned other = 0; other < argIndex; ++other) {
    for (StringRef key : {kParamAttrName.data(), kInputAttrName.data()}) {
      auto otherName = func.getArgAttrOfType<StringAttr>(other, key);
      if (otherName && otherName == name)
        return op->emitError()
               << "argument #" << argIndex << " reuses the name '"
               << name.getValue() << "' of argument #" << other;
    }
  }
  return success();
}
