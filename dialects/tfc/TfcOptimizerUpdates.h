//===- TfcOptimizerUpdates.h - the optimizer update ops ---------*- C++ -*-===//
//
// The ops that are one optimizer step of a parameter (and its state) from
// its gradient: tfc.adamw, tfc.adam, tfc.sgd, tfc.adamw8bit. Passes that
// treat updates alike (--tfc-optimizer-in-backward moves them, the
// mixed-precision pass refuses to retype them) name them through this one
// list; an optimizer written as plain ops (adafactor) has no update op.
//
//===----------------------------------------------------------------------===//

#ifndef TFC_DIALECTS_TFC_TFCOPTIMIZERUPDATES_H
#define TFC_DIALECTS_TFC_TFCOPTIMIZERUPDATES_H

#include "dialects/tfc/TfcOps.h"

/// The op classes, for isa<> and for op-name lists.
#define TFC_OPTIMIZER_UPDATE_OPS                                               \
  ::mlir::tfc::AdamWOp, ::mlir::tfc::AdamOp, ::mlir::tfc::SgdOp,               \
      ::mlir::tfc::AdamW8bitOp

namespace mlir::tfc {

/// Whether `op` is an optimizer update op.
inline bool isOptimizerUpdate(Operation *op) {
  return isa<TFC_OPTIMIZER_UPDATE_OPS>(op);
}

} // namespace mlir::tfc

#endif // TFC_DIALECTS_TFC_TFCOPTIMIZERUPDATES_H
