//===- TfcDialect.h - the tfc graph-level dialect ---------------*- C++ -*-===//
//
// Declares the tfc dialect, its enums and enum attributes. Include
// "dialects/tfc/TfcOps.h" for the ops.
//
//===----------------------------------------------------------------------===//

#ifndef TFC_DIALECTS_TFC_TFCDIALECT_H
#define TFC_DIALECTS_TFC_TFCDIALECT_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"

#include "dialects/tfc/TfcDialect.h.inc"
#include "dialects/tfc/TfcEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "dialects/tfc/TfcAttrs.h.inc"

#endif // TFC_DIALECTS_TFC_TFCDIALECT_H
