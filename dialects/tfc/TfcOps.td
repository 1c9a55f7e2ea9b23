//===- TfcOps.td - all tfc ops (umbrella) ---------------------------------===//
//
// Includes every op group. The build generates the dialect's op reference
// (build/docs/tfc/TfcOps.md) from this file; C++ is generated per group.
//
//===----------------------------------------------------------------------===//

#ifndef TFC_OPS_TD
#define TFC_OPS_TD

include "dialects/tfc/TfcElementwiseOps.td"
include "dialects/tfc/TfcShapeOps.td"
include "dialects/tfc/TfcReductionOps.td"
include "dialects/tfc/TfcLinalgOps.td"
include "dialects/tfc/TfcNNOps.td"
include "dialects/tfc/TfcGradOps.td"
include "dialects/tfc/TfcOptimizerOps.td"
include "dialects/tfc/TfcFusionOps.td"

#endif // TFC_OPS_TD
