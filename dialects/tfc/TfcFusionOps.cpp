//===- TfcFusionOps.cpp - tfc tfc.fusion, the kernel region op, and its terminator ===//

#include "dialects/tfc/TfcOps.h"
#include "dialects/tfc/TfcShapeUtils.h"

using namespace mlir;
using namespace mlir::tfc;

#define GET_OP_CLASSES
#include "dialects/tfc/TfcFusionOps.cpp.inc"

void TfcDialect::registerFusionOps() {
  addOperations<
#define GET_OP_LIST
#include "dialects/tfc/TfcFusionOps.cpp.inc"
      >();
}
