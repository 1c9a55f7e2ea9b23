//===- TfcShapeOps.td - tfc reshape, transpose, broadcast_to, slice, concat, pad, iota ===//

#ifndef TFC_SHAPE_OPS_TD
#define TFC_SHAPE_OPS_TD

include "dialects/tfc/TfcBase.td"

#endif // TFC_SHAPE_OPS_TD
