//===- Schedule.cpp - host-side learning-rate schedules --------------------===//

#include "compiler/tools/tfc-train/Schedule.h"

#include <algorithm>
#include <cmath>

using namespace tfc::train;

double Schedule::at(int64_t step) const {
  if (kind == ScheduleKind::Constant)
    return lr;
  if (step < warmup)
    return lr * double(step + 1) / double(warmup);
  double span = double(std::max<int64_t>(1, totalSteps - warmup - 1));
  double p = std::clamp(double(step - warmup) / span, 0.0, 1.0);
  if (kind == ScheduleKind::WarmupCosine)
    return minLr + (lr - minLr) * 0.5 * (1.0 + std::cos(M_PI * p));
  return lr - (lr - minLr) * p;
}

bool tfc::train::parseScheduleKind(const std::string &name,
                                   ScheduleKind &kind) {
  if (name == "constant")
    kind = ScheduleKind::Constant;
  else if (name == "warmup-cosine")
    kind = ScheduleKind::WarmupCosine;
  else if (name == "warmup-linear")
    kind = ScheduleKind::WarmupLinear;
  else
    return false;
  return true;
}

const char *tfc::train::scheduleKindName(ScheduleKind kind) {
  switch (kind) {
  case ScheduleKind::Constant:
    return "constant";
  case ScheduleKind::WarmupCosine:
    return "warmup-cosine";
  case ScheduleKind::WarmupLinear:
    return "warmup-linear";
  }
  return "?";
}
