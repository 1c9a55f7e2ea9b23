//===- TfcOps.h - all tfc ops -----------------------------------*- C++ -*-===//
//
// Umbrella header for the tfc dialect's ops; each group is generated from
// its own Tfc*Ops.td.
//
//===----------------------------------------------------------------------===//

#ifndef TFC_DIALECTS_TFC_TFCOPS_H
#define TFC_DIALECTS_TFC_TFCOPS_H

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "dialects/tfc/TfcDialect.h"
#include "dialects/tfc/TfcInterfaces.h"
#include "dialects/tfc/TfcTraits.h"

// Each generated header consumes (#undefs) GET_OP_CLASSES, so define it again
// before every group.
#define GET_OP_CLASSES
#include "dialects/tfc/TfcElementwiseOps.h.inc"
#define GET_OP_CLASSES
#include "dialects/tfc/TfcShapeOps.h.inc"
#define GET_OP_CLASSES
#include "dialects/tfc/TfcReductionOps.h.inc"
#define GET_OP_CLASSES
#include "dialects/tfc/TfcLinalgOps.h.inc"
#define GET_OP_CLASSES
#include "dialects/tfc/TfcNNOps.h.inc"
#define GET_OP_CLASSES
#include "dialects/tfc/TfcOptimizerOps.h.inc"
#define GET_OP_CLASSES
#include "dialects/tfc/TfcFusionOps.h.inc"
#define GET_OP_CLASSES
#include "dialects/tfc/TfcGradOps.h.inc"

#endif // TFC_DIALECTS_TFC_TFCOPS_H
