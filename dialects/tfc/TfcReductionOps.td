//===- TfcReductionOps.td - tfc reduce_sum, reduce_mean, reduce_max ===//

#ifndef TFC_REDUCTION_OPS_TD
#define TFC_REDUCTION_OPS_TD

include "dialects/tfc/TfcBase.td"

#endif // TFC_REDUCTION_OPS_TD
