//===- StepStages.h - the five stages of a training step --------*- C++ -*-===//
//
// --tfc-build-train-step and --tfc-train-pipeline compose the same five
// passes (Passes.td): gradients, accumulate, loss-scaling, clip, optimizer.
// Each stage's options are a subset of --tfc-build-train-step's, under the
// same names (Passes.td defines each list once); the lists below name the
// fields of each subset so that the options travel between the full set
// and a stage's set without restating any default.
//
//===----------------------------------------------------------------------===//

#ifndef TFC_PASSES_TRAINING_STEPSTAGES_H
#define TFC_PASSES_TRAINING_STEPSTAGES_H

#include "passes/training/Passes.h"

#include "mlir/Pass/PassManager.h"

#include <string>

// The fields of each stage's options (X(name) per option).
#define TFC_STEP_GRADIENTS_OPTIONS(X) X(function)
#define TFC_STEP_ACCUMULATE_OPTIONS(X) X(accumulateSteps)
#define TFC_STEP_LOSS_SCALING_OPTIONS(X)                                       \
  X(initScale) X(growthFactor) X(backoffFactor) X(growthInterval)              \
  X(minScale) X(maxScale)
#define TFC_STEP_CLIP_OPTIONS(X) X(maxGradNorm) X(clipGradValue)
#define TFC_STEP_OPTIMIZER_OPTIONS(X)                                          \
  X(optimizer) X(beta1) X(beta2) X(eps) X(weightDecay) X(decayAll)             \
  X(blockSize) X(momentum) X(nesterov) X(alpha) X(centered) X(lrDecay)         \
  X(initialAccumulatorValue) X(momentumDecay) X(nadamFixedProduct)            \
  X(beta2Decay) X(eps1) X(eps2)                                                \
  X(clipThreshold) X(schedule)

namespace tfc {

#define TFC_COPY_STEP_OPTION(name) to.name = from.name;
/// copyStep<Stage>Options(to, from): copies the fields of one stage's list
/// between any two option holders that have them (option structs, passes).
#define TFC_DEFINE_STEP_OPTIONS_COPY(Stage, LIST)                              \
  template <typename To, typename From>                                        \
  void copyStep##Stage##Options(To &to, const From &from) {                    \
    LIST(TFC_COPY_STEP_OPTION)                                                 \
  }
TFC_DEFINE_STEP_OPTIONS_COPY(Gradients, TFC_STEP_GRADIENTS_OPTIONS)
TFC_DEFINE_STEP_OPTIONS_COPY(Accumulate, TFC_STEP_ACCUMULATE_OPTIONS)
TFC_DEFINE_STEP_OPTIONS_COPY(LossScaling, TFC_STEP_LOSS_SCALING_OPTIONS)
TFC_DEFINE_STEP_OPTIONS_COPY(Clip, TFC_STEP_CLIP_OPTIONS)
TFC_DEFINE_STEP_OPTIONS_COPY(Optimizer, TFC_STEP_OPTIMIZER_OPTIONS)
#undef TFC_DEFINE_STEP_OPTIONS_COPY

/// Inside a member function of a pass (whose options are protected):
/// declares `full`, the full option set with the pass's options of LIST.
#define TFC_STEP_OPTIONS_OF_PASS(LIST, full)                                   \
  ::tfc::TfcBuildTrainStepPassOptions full;                                    \
  {                                                                            \
    auto &to = full;                                                           \
    const auto &from = *this;                                                  \
    LIST(TFC_COPY_STEP_OPTION)                                                 \
  }

/// Adds the stages `options` asks for to `pm` (a module pass manager), in
/// their order: gradients; accumulate when accumulate-steps > 1;
/// loss-scaling when loss-scaling; clip when max-grad-norm or
/// clip-grad-value > 0; optimizer.
void addTrainStepStages(mlir::OpPassManager &pm,
                        const TfcBuildTrainStepPassOptions &options);

/// The stages, each on a module with the full option set (only its own
/// fields are read). On failure a diagnostic was emitted.
mlir::LogicalResult
runStepGradients(mlir::ModuleOp module,
                 const TfcBuildTrainStepPassOptions &options);
mlir::LogicalResult
runStepAccumulate(mlir::ModuleOp module,
                  const TfcBuildTrainStepPassOptions &options);
mlir::LogicalResult
runStepLossScaling(mlir::ModuleOp module,
                   const TfcBuildTrainStepPassOptions &options);
mlir::LogicalResult runStepClip(mlir::ModuleOp module,
                                const TfcBuildTrainStepPassOptions &options);
mlir::LogicalResult
runStepOptimizer(mlir::ModuleOp module,
                 const TfcBuildTrainStepPassOptions &options);

/// Each stage's check of its own options; "" when they are fine.
std::string
checkStepAccumulateOptions(const TfcBuildTrainStepPassOptions &options);
std::string checkStepClipOptions(const TfcBuildTrainStepPassOptions &options);
std::string
checkStepOptimizerOptions(const TfcBuildTrainStepPassOptions &options);

} // namespace tfc

#endif // TFC_PASSES_TRAINING_STEPSTAGES_H
