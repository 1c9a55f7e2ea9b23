//===- TfcElementwiseOps.cpp - tfc elementwise ops ------------------------===//
//
// Result-type inference and verifiers of the elementwise group. Folders and
// canonicalization patterns live in TfcFolds.cpp.
//
//===----------------------------------------------------------------------===//

#include "dialects/tfc/TfcOps.h"
#include "dialects/tfc/TfcShapeUtils.h"

#include "mlir/IR/Builders.h"

using namespace mlir;
using namespace mlir::tfc;

#define GET_OP_CLASSES
#include "dialects/tfc/TfcElementwiseOps.cpp.inc"

void TfcDialect::registerElementwiseOps() {
  addOperations<
#define GET_OP_LIST
#include "dialects/tfc/TfcElementwiseOps.cpp.inc"
      >();
}

//===----------------------------------------------------------------------===//
// Broadcasting binary ops
//===----------------------------------------------------------------------===//

// Every Tfc_BinaryOp (add ... fmod) infers the broadcast shape with lhs's
// dtype in its ODS (extraClassDefinition); compare infers i1.

LogicalResult CompareOp::inferReturnTypes(MLIRContext *context,
                                          std::optional<Location> loc,
                                          Adaptor adaptor,
                                          SmallVectorImpl<Type> &inferred) {
  return inferBroadcastType(
      loc, {adaptor.getLhs().getType(), adaptor.getRhs().getType()},
      IntegerType::get(context, 1), inferred);
}

LogicalResult SelectOp::inferReturnTypes(MLIRContext *,
                                         std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &inferred) {
  return inferBroadcastType(loc,
                            {adaptor.getCondition().getType(),
                             adaptor.getOnTrue().getType(),
                             adaptor.getOnFalse().getType()},
                            getElementTypeOrSelf(adaptor.getOnTrue().getType()),
                            inferred);
}

//===----------------------------------------------------------------------===//
// ConstantOp
//===----------------------------------------------------------------------===//

LogicalResult ConstantOp::inferReturnTypes(MLIRContext *,
                                           std::optional<Location>,
                                           Adaptor adaptor,
                                           SmallVectorImpl<Type> &inferred) {
  inferred.push_back(adaptor.getValue().getType());
  return success();
}

LogicalResult ConstantOp::verify() {
  // The result type constraint already checks dtype and static shape; the
  // attribute must also hold its values densely (no resource blobs or
  // sparse encodings, which codegen cannot read).
  if (!isa<DenseElementsAttr>(getValue()))
    return emitOpError("value must be a dense elements attribute");
  return success();
}
