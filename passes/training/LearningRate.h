//===- LearningRate.h - the learning-rate schedule on the device -*- C++ -*-===//
//
// The learning rate of a train step is computed inside the step from the
// step counter (the `step` state) and runtime 0-d inputs, so a schedule runs
// with no host work per step and changing any rate never recompiles. A step
// skipped by the loss scaler does not advance the counter, so it does not
// advance the schedule either.
//
//===----------------------------------------------------------------------===//

#ifndef TFC_PASSES_TRAINING_LEARNINGRATE_H
#define TFC_PASSES_TRAINING_LEARNINGRATE_H

#include "passes/training/Passes.h"

#include "mlir/IR/Builders.h"

#include <string>

namespace tfc {

/// The name of the output that reports the rate a step used.
constexpr const char *kAppliedLrOutput = "applied_lr";

/// One runtime input of the schedule: a 0-d float (f32, or f64 when the
/// model has f64 parameters) or an i64 when `isInteger`.
struct ScheduleInput {
  const char *name;
  bool isInteger;
};

/// The inputs `options.schedule` reads, in argument order: `lr` always
/// (the peak rate); `min_lr`, `warmup_steps`, `total_steps` for the warmup
/// schedules.
llvm::SmallVector<ScheduleInput>
scheduleInputs(const TfcBuildTrainStepPassOptions &options);

/// Whether `name` is an input of some schedule (lr, min_lr, ...).
bool isScheduleInputName(llvm::StringRef name);

/// Checks the schedule option; empty when valid.
std::string checkScheduleOptions(const TfcBuildTrainStepPassOptions &options);

/// Emits the rate of the step after `stepsTaken` (0-d i64, the steps taken
/// before this one) from the schedule inputs (values of scheduleInputs'
/// types, in its order). Returns a 0-d rate of the inputs' float type.
mlir::Value buildLearningRate(mlir::OpBuilder &builder, mlir::Location loc,
                              const TfcBuildTrainStepPassOptions &options,
                              llvm::ArrayRef<mlir::Value> inputs,
                              mlir::Value stepsTaken);

} // namespace tfc

#endif // TFC_PASSES_TRAINING_LEARNINGRATE_H
