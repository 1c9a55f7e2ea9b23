//===- TfcNNOps.cpp - tfc neural-network ops: embedding, norms, softmax, dropout, attention, cross_entropy ===//

#include "dialects/tfc/TfcOps.h"
#include "dialects/tfc/TfcShapeUtils.h"

using namespace mlir;
using namespace mlir::tfc;

#define GET_OP_CLASSES
#include "dialects/tfc/TfcNNOps.cpp.inc"

void TfcDialect::registerNNOps() {
  addOperations<
#define GET_OP_LIST
#include "dialects/tfc/TfcNNOps.cpp.inc"
      >();
}
