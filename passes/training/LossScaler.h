//===- LossScaler.h - dynamic loss scaling in the train step ----*- C++ -*-===//
//
// torch.cuda.amp.GradScaler's semantics as graph ops: the loss is multiplied
// by the scale before differentiation; the gradients are unscaled and checked
// for inf/NaN in the same pass; the scale backs off on overflow and grows
// after `growth-interval` clean steps, clamped to [min-scale, max-scale].
// State (`loss_scale`, `growth_tracker`) lives on the device; nothing here
// needs the host.
//
//===----------------------------------------------------------------------===//

#ifndef TFC_PASSES_TRAINING_LOSSSCALER_H
#define TFC_PASSES_TRAINING_LOSSSCALER_H

#include "passes/training/Passes.h"

#include "mlir/IR/Builders.h"

#include <string>

namespace tfc {

/// The scaler options of --tfc-build-train-step, checked; empty when valid.
std::string checkLossScalerOptions(const TfcBuildTrainStepPassOptions &options);

class LossScaler {
public:
  LossScaler(const TfcBuildTrainStepPassOptions &options, mlir::OpBuilder &builder,
             mlir::Location loc)
      : options(options), b(builder), loc(loc) {}

  /// The scale of this step from the stored `loss_scale` state (0-d f32): a
  /// zero (the zero-filled state before the first step) reads as init-scale.
  mlir::Value currentScale(mlir::Value stored);

  /// Multiplies every gradient by the f32 reciprocal of `scale` and returns
  /// the 0-d i1 "found inf": true when any gradient had an inf or NaN
  /// (checked before unscaling, as GradScaler's kernel does).
  mlir::Value unscaleAndCheck(llvm::MutableArrayRef<mlir::Value> grads,
                              mlir::Value scale);

  /// The next (loss_scale, growth_tracker) after a step with `foundInf`.
  std::pair<mlir::Value, mlir::Value> update(mlir::Value scale,
                                             mlir::Value tracker,
                                             mlir::Value foundInf);

private:
  TfcBuildTrainStepPassOptions options;
  mlir::OpBuilder &b;
  mlir::Location loc;
};

} // namespace tfc

#endif // TFC_PASSES_TRAINING_LOSSSCALER_H
