//===- TfcNNOps.td - tfc neural-network ops: embedding, norms, softmax, dropout, attention, cross_entropy ===//

#ifndef TFC_NN_OPS_TD
#define TFC_NN_OPS_TD

include "dialects/tfc/TfcBase.td"

#endif // TFC_NN_OPS_TD
