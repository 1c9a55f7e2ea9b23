//===- TfcFusionOps.td - tfc tfc.fusion, the kernel region op, and its terminator ===//

#ifndef TFC_FUSION_OPS_TD
#define TFC_FUSION_OPS_TD

include "dialects/tfc/TfcBase.td"

#endif // TFC_FUSION_OPS_TD
