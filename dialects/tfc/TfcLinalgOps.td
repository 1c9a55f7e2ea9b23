//===- TfcLinalgOps.td - tfc matmul ===//

#ifndef TFC_LINALG_OPS_TD
#define TFC_LINALG_OPS_TD

include "dialects/tfc/TfcBase.td"

#endif // TFC_LINALG_OPS_TD
