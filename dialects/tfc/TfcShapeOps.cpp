//===- TfcShapeOps.cpp - tfc reshape, transpose, broadcast_to, slice, concat, pad, iota ===//

#include "dialects/tfc/TfcOps.h"
#include "dialects/tfc/TfcShapeUtils.h"

using namespace mlir;
using namespace mlir::tfc;

#define GET_OP_CLASSES
#include "dialects/tfc/TfcShapeOps.cpp.inc"

void TfcDialect::registerShapeOps() {
  addOperations<
#define GET_OP_LIST
#include "dialects/tfc/TfcShapeOps.cpp.inc"
      >();
}
