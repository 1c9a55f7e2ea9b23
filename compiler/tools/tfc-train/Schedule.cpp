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
  // A rate is f32, or f64 when the model has f64 parameters (the step
  // then computes its schedule in f64): set it in the binding's type.
  auto setRate = [&](const char *name, double value) {
    tfc_binding binding;
    if (tfc_status status = tfc_program_find_binding(program, name, &binding)) {
      error = std::string("the program has no schedule input '") + name +
              "': " + tfc_status_message(status);
      tfc_status_free(status);
      return false;
    }
    if (binding.dtype == TFC_DTYPE_F64)
      return set(name, &value, sizeof(value));
    float narrow = float(value);
    return set(name, &narrow, sizeof(narrow));
  };
  if (!setRate("lr", s.lr))
    return false;
  if (s.kind == ScheduleKind::Constant)
    return true;
  return setRate("min_lr", s.minLr) &&
         set("warmup_steps", &s.warmup, sizeof(s.warmup)) &&
         set("total_steps", &s.totalSteps, sizeof(s.totalSteps));
}
