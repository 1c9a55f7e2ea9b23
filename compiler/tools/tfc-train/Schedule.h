//===- Schedule.h - the learning-rate schedule's runtime inputs -*- C++ -*-===//
//
// The train step computes its learning rate on the device from the step
// counter (--tfc-build-train-step schedule=..., passes/training/
// LearningRate.cpp has the formulas). tfc-train only sets the schedule's
// inputs once, before the first step: lr (the peak rate) and, for the warmup
// schedules, min_lr, warmup_steps and total_steps. Changing any of them
// never recompiles; the rate a step used comes back as the `applied_lr`
// output.
//
//===----------------------------------------------------------------------===//

#ifndef TFC_TOOLS_TFC_TRAIN_SCHEDULE_H
#define TFC_TOOLS_TFC_TRAIN_SCHEDULE_H

#include "tfc/runtime.h"

#include <cstdint>
#include <string>

namespace tfc::train {

enum class ScheduleKind { Constant, WarmupCosine, WarmupLinear };

/// A learning-rate schedule over `totalSteps` optimizer steps.
struct Schedule {
  ScheduleKind kind = ScheduleKind::Constant;
  double lr = 3e-4;      ///< peak rate
  double minLr = 0.0;    ///< final rate of the decaying schedules
  int64_t warmup = 0;    ///< linear warmup steps (decaying schedules only)
  int64_t totalSteps = 1;
};

/// Parses "constant", "warmup-cosine" or "warmup-linear".
bool parseScheduleKind(const std::string &name, ScheduleKind &kind);
/// The flag spelling of `kind` (also the pass option's value).
const char *scheduleKindName(ScheduleKind kind);

/// Sets the schedule's inputs of a train step compiled with
/// schedule=scheduleKindName(s.kind). Returns false with `error` set when
/// the program lacks one of them or rejects it.
bool setScheduleInputs(tfc_program *program, const Schedule &s,
                       std::string &error);

} // namespace tfc::train

#endif // TFC_TOOLS_TFC_TRAIN_SCHEDULE_H
