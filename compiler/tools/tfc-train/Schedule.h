//===- Schedule.h - host-side learning-rate schedules -----------*- C++ -*-===//
//
// tfc-train computes the learning rate on the host each step and sets it as
// the train step's `lr` input, so a schedule never recompiles anything.
//
//===----------------------------------------------------------------------===//

#ifndef TFC_TOOLS_TFC_TRAIN_SCHEDULE_H
#define TFC_TOOLS_TFC_TRAIN_SCHEDULE_H

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

  /// The rate of the step with 0-based index `step`:
  /// - constant: lr;
  /// - warmup: lr * (step + 1) / warmup for step < warmup (the first step
  ///   already moves, unlike a schedule that starts at 0);
  /// - then with p = (step - warmup) / max(1, totalSteps - warmup - 1) in
  ///   [0, 1]: cosine minLr + (lr - minLr) * (1 + cos(pi p)) / 2, linear
  ///   lr - (lr - minLr) p. The last step runs at minLr.
  double at(int64_t step) const;
};

/// Parses "constant", "warmup-cosine" or "warmup-linear".
bool parseScheduleKind(const std::string &name, ScheduleKind &kind);
/// The flag spelling of `kind`.
const char *scheduleKindName(ScheduleKind kind);

} // namespace tfc::train

#endif // TFC_TOOLS_TFC_TRAIN_SCHEDULE_H
