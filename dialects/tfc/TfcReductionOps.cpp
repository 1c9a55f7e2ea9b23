//===- TfcReductionOps.cpp - tfc reduce_sum, reduce_mean, reduce_max ===//

#include "dialects/tfc/TfcOps.h"
#include "dialects/tfc/TfcShapeUtils.h"

using namespace mlir;
using namespace mlir::tfc;

#define GET_OP_CLASSES
#include "dialects/tfc/TfcReductionOps.cpp.inc"

void TfcDialect::registerReductionOps() {
  addOperations<
#define GET_OP_LIST
#include "dialects/tfc/TfcReductionOps.cpp.inc"
      >();
}
