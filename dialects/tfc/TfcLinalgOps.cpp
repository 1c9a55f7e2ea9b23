//===- TfcLinalgOps.cpp - tfc matmul ===//

#include "dialects/tfc/TfcOps.h"
#include "dialects/tfc/TfcShapeUtils.h"

using namespace mlir;
using namespace mlir::tfc;

#define GET_OP_CLASSES
#include "dialects/tfc/TfcLinalgOps.cpp.inc"

void TfcDialect::registerLinalgOps() {
  addOperations<
#define GET_OP_LIST
#include "dialects/tfc/TfcLinalgOps.cpp.inc"
      >();
}
