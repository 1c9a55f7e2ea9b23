//===- TfcrtDialect.cpp - the tfcrt exec-level dialect --------------------===//

#include "dialects/tfcrt/TfcrtDialect.h"
#include "dialects/tfcrt/TfcrtOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::tfcrt;

#include "dialects/tfcrt/TfcrtDialect.cpp.inc"
#include "dialects/tfcrt/TfcrtEnums.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "dialects/tfcrt/TfcrtAttrs.cpp.inc"

void TfcrtDialect::initialize() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "dialects/tfcrt/TfcrtAttrs.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "dialects/tfcrt/TfcrtOps.cpp.inc"
      >();
}
