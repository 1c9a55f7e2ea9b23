//===- TfcrtDialect.h - the tfcrt exec-level dialect ------------*- C++ -*-===//
//
// Declares the tfcrt dialect, its enums and enum attributes. Include
// "dialects/tfcrt/TfcrtOps.h" for the ops.
//
//===----------------------------------------------------------------------===//

#ifndef TFC_DIALECTS_TFCRT_TFCRTDIALECT_H
#define TFC_DIALECTS_TFCRT_TFCRTDIALECT_H

#include "dialects/tfc/TfcDialect.h"

#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"

#include "dialects/tfcrt/TfcrtDialect.h.inc"
#include "dialects/tfcrt/TfcrtEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "dialects/tfcrt/TfcrtAttrs.h.inc"

#endif // TFC_DIALECTS_TFCRT_TFCRTDIALECT_H
