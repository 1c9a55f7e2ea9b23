//===- Schedule.cpp - the learning-rate schedule's runtime inputs --------===//

#include "compiler/tools/tfc-train/Schedule.h"


using namespace tfc::train;

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

bool tfc::train::setScheduleInputs(tfc_program *program, const Schedule &s,
                                   std::string &error) {
  auto set = [&](const char *name, const void *data, size_t bytes) {
    if (tfc_status status = tfc_program_set(program, name, data, bytes)) {
      error = std::string("cannot set the schedule input '") + name +
              "': " + tfc_status_message(status);
      tfc_status_free(status);
      return false;
    }
    return true;
  };
  float lr = float(s.lr), minLr = float(s.minLr);
  if (!set("lr", &lr, sizeof(lr)))
    return false;
  if (s.kind == ScheduleKind::Constant)
    return true;
  return set("min_lr", &minLr, sizeof(minLr)) &&
         set("warmup_steps", &s.warmup, sizeof(s.warmup)) &&
         set("total_steps", &s.totalSteps, sizeof(s.totalSteps));
}
