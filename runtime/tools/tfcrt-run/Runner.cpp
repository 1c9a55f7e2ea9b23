//===- Runner.cpp - run a loaded artifact from the command line -----------===//

#include "runtime/tools/tfcrt-run/Runner.h"

#include "runtime/tools/common/OpenDevice.h"
#include "tfc/runtime.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <vector>

namespace tfc::tools {

void addRunFlags(FlagParser &p, RunOptions &o) {
  p.addString("device", &o.device,
              "Backend: host, cuda, or auto (cuda if usable; default)");
  p.addString("inputs", &o.inputs,
              "Safetensors file with parameters and inputs");
  p.addString("entry", &o.entry,
              "Entry to run (default: forward, or the artifact's only entry; "
              "e.g. accumulate_step to drive a step by hand)");
  p.addUnsigned("steps", &o.steps,
                "Run the entry this many times in one process (params and "
                "state persist between runs, e.g. training steps)");
  p.addUnsigned("accumulate", &o.accumulate,
                "Each run is one optimizer step of a gradient-accumulation "
                "program: accumulate_step this many times, then apply_step");
  p.addString("trace", &o.traceFile,
              "Write one JSON line per run of --steps with the values of "
              "every scalar output and state (loss, step, loss_scale, ...)");
  p.addString("state-out", &o.stateOut,
              "After the runs, write params and state to this safetensors "
              "file (loadable again with --inputs)");
  p.addUnsigned("seed", &o.seed,
                "Fill parameters/inputs randomly from this seed first (floats "
                "N(0,1), integers uniform in [0, --int-range)); a training "
                "program's learning-rate inputs get tfc-train's defaults "
                "instead (lr 3e-4, min_lr 0, warmup_steps 0, total_steps "
                "--steps)");
  p.addInt("int-range", &o.intRange,
           "With --seed: random integers lie in [0, N) (N >= 1; 2)");
  p.addString("outputs", &o.outputs,
              "Write the outputs to this safetensors file");
  p.addUnsigned("repeat", &o.repeat,
                "Time this many further runs of the entry (median)");
  p.addString("timing-json", &o.timingJson,
              "With --repeat: write {median_ms, runs_ms} here");
  p.addUnsigned("profile", &o.profile,
                "Time each step of the entry over this many runs (waiting for "
                "each step), print its bandwidth next to a device copy's, and "
                "the cold and warm kernel-compile times");
  p.addString("profile-json", &o.profileJson,
              "With --profile: write the step table as JSON here");
  p.addBool("quiet", &o.quiet, "Print only errors");
  p.addString("probe-device", &o.probeDevice,
              "Only check that a backend can be opened (exit 0) or not (1)");
}

void finishRunFlags(const FlagParser &parser, RunOptions &options) {
  options.haveSeed = parser.seen("seed");
}

namespace {

/// Prints `what` and the status message on one line; frees the status.
bool fail(const RunOptions &o, const std::string &what,
          tfc_status status = nullptr) {
  std::fprintf(stderr, "%s: %s%s%s\n", o.tool.c_str(), what.c_str(),
               status ? ": " : "", status ? tfc_status_message(status) : "");
  tfc_status_free(status);
  return false;
}

/// Owns the runtime objects for the run's lifetime.
struct Runtime {
  tfc_device *dev = nullptr;
  tfc_program *program = nullptr;
  ~Runtime() {
    tfc_program_destroy(program);
    tfc_device_destroy(dev);
  }
};

double msSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(
             std::chrono::steady_clock::now() - start)
      .count();
}

/// Work longer than this (or expected to be) is announced on stderr, so a
/// large model is never minutes of silence.
constexpr double kProgressMs = 1000;
/// Random values past which filling them is announced before it starts.
constexpr size_t kProgressValues = size_t(1) << 24;

/// A progress line on stderr (not with --quiet): stdout stays the results.
void progress(const RunOptions &o, const std::string &line) {
  if (!o.quiet) {
    std::fprintf(stderr, "%s: %s\n", o.tool.c_str(), line.c_str());
    std::fflush(stderr);
  }
}

/// `n` with thousands separators ("134,217,728").
std::string grouped(uint64_t n) {
  std::string digits = std::to_string(n), out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i && (digits.size() - i) % 3 == 0)
      out += ',';
    out += digits[i];
  }
  return out;
}

std::string seconds(double ms) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.1f s", ms / 1000);
  return buffer;
}

/// The inputs of a training program that are not data: its learning-rate
/// schedule's (--tfc-build-train-step: lr, and for the warmup schedules
/// min_lr, warmup_steps, total_steps). --seed never fills them randomly (a
/// negative rate would train backwards): it gives them tfc-train's defaults,
/// lr 3e-4, min_lr 0, warmup_steps 0, total_steps = --steps, and says so;
/// --inputs overrides them like anything else.
struct ScheduleDefault {
  const char *name;
  double value;
};

std::vector<ScheduleDefault> scheduleDefaults(const RunOptions &o) {
  return {{"lr", 3e-4},
          {"min_lr", 0.0},
          {"warmup_steps", 0.0},
          {"total_steps", double(std::max(o.steps, 1u))}};
}

bool isTrainingProgram(tfc_program *program) {
  for (size_t i = 0, e = tfc_program_entry_count(program); i < e; ++i) {
    std::string name = tfc_program_entry_name(program, i);
    if (name == "train_step" || name == "apply_step")
      return true;
  }
  return false;
}

/// Sets a schedule input of dtype f32, f64, i32 or i64 to `value`; false
/// (nothing set) for another dtype or shape.
bool setScheduleInput(const RunOptions &o, tfc_program *program,
                      const tfc_binding &b, double value, bool &ok) {
  size_t size = tfc_dtype_size(b.dtype);
  if (b.bytes != size)
    return false;
  uint8_t bytes[8];
  switch (b.dtype) {
  case TFC_DTYPE_F32: {
    float v = float(value);
    std::memcpy(bytes, &v, 4);
    break;
  }
  case TFC_DTYPE_F64:
    std::memcpy(bytes, &value, 8);
    break;
  case TFC_DTYPE_I32: {
    int32_t v = int32_t(value);
    std::memcpy(bytes, &v, 4);
    break;
  }
  case TFC_DTYPE_I64: {
    int64_t v = int64_t(value);
    std::memcpy(bytes, &v, 8);
    break;
  }
  default:
    return false;
  }
  if (tfc_status s = tfc_program_set(program, b.name, bytes, size))
    ok = fail(o, std::string("cannot set '") + b.name + "'", s);
  return true;
}

/// The tensor names of the safetensors file `path`, from its header; empty
/// when it cannot be read (the load that follows then reports the problem).
std::vector<std::string> safetensorsNames(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  uint8_t size[8];
  if (!in.read(reinterpret_cast<char *>(size), 8))
    return {};
  uint64_t n = 0;
  for (int i = 7; i >= 0; --i)
    n = n << 8 | size[i];
  if (n > 100000000) // kMaxSafetensorsHeaderBytes, the reader's limit
    return {};
  std::string header(n, '\0');
  if (!in.read(header.data(), std::streamsize(n)))
    return {};
  nlohmann::json doc = nlohmann::json::parse(header, nullptr,
                                             /*allow_exceptions=*/false);
  if (!doc.is_object())
    return {};
  std::vector<std::string> names;
  for (auto &[name, value] : doc.items())
    if (name != "__metadata__")
      names.push_back(name);
  return names;
}

/// Those of `names` that name no external of `program`.
std::vector<std::string> namingNoExternal(const std::vector<std::string> &names,
                                          tfc_program *program) {
  std::vector<std::string> extra;
  for (const std::string &name : names) {
    tfc_binding b;
    if (tfc_status s = tfc_program_find_binding(program, name.c_str(), &b)) {
      tfc_status_free(s);
      extra.push_back(name);
    }
  }
  return extra;
}

/// A notice naming the state of a program that is not a training step (the
/// model state of an exported loss: batch norm's running statistics, a
/// spectral norm's vectors) that neither --inputs (`given`) sets: it starts
/// at zero, which such state rarely is (a zero weight_u gives NaN).
void noteZeroState(const RunOptions &o, tfc_program *program,
                   const std::vector<std::string> &given) {
  if (isTrainingProgram(program))
    return; // optimizer state starts at zero by design
  std::string names;
  size_t count = 0;
  for (size_t i = 0, e = tfc_program_binding_count(program); i < e; ++i) {
    tfc_binding b;
    if (tfc_status s = tfc_program_binding(program, i, &b)) {
      tfc_status_free(s);
      continue;
    }
    if (b.role != TFC_ROLE_STATE ||
        std::find(given.begin(), given.end(), b.name) != given.end())
      continue;
    if (count++ < 5)
      names += (names.empty() ? "" : ", ") + std::string(b.name);
  }
  if (count)
    progress(o, "state not in --inputs starts at zero: " + names +
                    (count > 5 ? ", ..." : "") +
                    " (give the model state with the parameters, e.g. "
                    "tfc_torch's save_weights)");
}

bool fillRandom(const RunOptions &o, tfc_program *program) {
  // Integers are drawn from [0, --int-range): an empty range is an error,
  // not a silent 1.
  if (o.intRange < 1)
    return fail(o, "--int-range must be at least 1 (random integers lie in "
                   "[0, N)), not " + std::to_string(o.intRange));
  auto start = std::chrono::steady_clock::now();
  uint64_t values = 0;
  for (size_t i = 0, e = tfc_program_binding_count(program); i < e; ++i) {
    tfc_binding b;
    if (tfc_status s = tfc_program_binding(program, i, &b))
      return fail(o, "cannot describe binding", s);
    if (b.role != TFC_ROLE_OUTPUT && b.role != TFC_ROLE_STATE)
      values += b.bytes / tfc_dtype_size(b.dtype);
  }
  bool announce = values >= kProgressValues;
  if (announce)
    progress(o, "filling " + grouped(values) + " random values (seed " +
                    std::to_string(o.seed) + ") ...");
  bool training = isTrainingProgram(program);
  std::vector<ScheduleDefault> defaults = scheduleDefaults(o);
  std::string applied;
  std::mt19937_64 rng(o.seed);
  std::normal_distribution<double> normal(0.0, 1.0);
  std::uniform_int_distribution<int64_t> uniform(
      0, o.intRange - 1);
  for (size_t i = 0, e = tfc_program_binding_count(program); i < e; ++i) {
    tfc_binding b;
    if (tfc_status s = tfc_program_binding(program, i, &b))
      return fail(o, "cannot describe binding", s);
    // State starts zeroed (a first training step relies on it).
    if (b.role == TFC_ROLE_OUTPUT || b.role == TFC_ROLE_STATE)
      continue;
    if (training && b.role == TFC_ROLE_INPUT) {
      auto d = std::find_if(defaults.begin(), defaults.end(),
                            [&](const ScheduleDefault &x) {
                              return b.name == std::string(x.name);
                            });
      bool ok = true;
      if (d != defaults.end() &&
          setScheduleInput(o, program, b, d->value, ok)) {
        if (!ok)
          return false;
        char text[64];
        std::snprintf(text, sizeof text, "%s = %g", d->name, d->value);
        applied += (applied.empty() ? "" : ", ") + std::string(text);
        continue;
      }
    }
    size_t count = b.bytes / tfc_dtype_size(b.dtype);
    std::vector<uint8_t> bytes(b.bytes);
    for (size_t j = 0; j < count; ++j) {
      switch (b.dtype) {
      case TFC_DTYPE_F32: {
        float v = static_cast<float>(normal(rng));
        std::memcpy(bytes.data() + 4 * j, &v, 4);
        break;
      }
      case TFC_DTYPE_F64: {
        double v = normal(rng);
        std::memcpy(bytes.data() + 8 * j, &v, 8);
        break;
      }
      case TFC_DTYPE_F16: {
        _Float16 v = static_cast<_Float16>(normal(rng));
        std::memcpy(bytes.data() + 2 * j, &v, 2);
        break;
      }
      case TFC_DTYPE_BF16: {
        // bf16 is the high half of an f32 (truncating a random sample is
        // as good a random sample).
        float v = static_cast<float>(normal(rng));
        uint32_t u;
        std::memcpy(&u, &v, 4);
        uint16_t h = static_cast<uint16_t>(u >> 16);
        std::memcpy(bytes.data() + 2 * j, &h, 2);
        break;
      }
      case TFC_DTYPE_I1:
        bytes[j] = static_cast<uint8_t>(uniform(rng) & 1);
        break;
      case TFC_DTYPE_U8:
        bytes[j] = static_cast<uint8_t>(uniform(rng));
        break;
      case TFC_DTYPE_I32: {
        int32_t v = static_cast<int32_t>(uniform(rng));
        std::memcpy(bytes.data() + 4 * j, &v, 4);
        break;
      }
      case TFC_DTYPE_I64: {
        int64_t v = uniform(rng);
        std::memcpy(bytes.data() + 8 * j, &v, 8);
        break;
      }
      }
    }
    if (tfc_status s =
            tfc_program_set(program, b.name, bytes.data(), bytes.size()))
      return fail(o, std::string("cannot set '") + b.name + "'", s);
  }
  if (announce)
    progress(o, "filled in " + seconds(msSince(start)));
  if (!applied.empty())
    progress(o, "--seed: learning-rate inputs take their defaults, not "
                "random values: " + applied + " (give them in --inputs to "
                "change them)");
  return true;
}

/// Prints each output briefly: its name, shape, dtype and (for scalars and
/// small f32 tensors) its values.
void printSummary(tfc_program *program) {
  for (size_t i = 0, e = tfc_program_binding_count(program); i < e; ++i) {
    tfc_binding b;
    if (tfc_status s = tfc_program_binding(program, i, &b)) {
      tfc_status_free(s);
      continue;
    }
    if (b.role != TFC_ROLE_OUTPUT)
      continue;
    std::string shape;
    for (size_t d = 0; d < b.rank; ++d)
      shape += (d ? "x" : "") + std::to_string(b.shape[d]);
    std::printf("%s: %s%s%s", b.name, shape.c_str(), b.rank ? "x" : "",
                tfc_dtype_name(b.dtype));
    if (b.dtype == TFC_DTYPE_F32 && b.bytes <= 4 * 8) {
      std::vector<float> values(b.bytes / 4);
      if (tfc_status s =
              tfc_program_get(program, b.name, values.data(), b.bytes))
        tfc_status_free(s);
      else
        for (float v : values)
          std::printf(" %.7g", v);
    }
    std::printf("\n");
  }
}

/// A JSON number for `v` (Python's json reads NaN and Infinity).
std::string jsonNumber(double v, int digits) {
  if (std::isnan(v))
    return "NaN";
  if (std::isinf(v))
    return v > 0 ? "Infinity" : "-Infinity";
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.*g", digits, v);
  return buffer;
}

/// --trace: appends {"run": i, name: value...} for every 0-d output and
/// state binding after run `run`.
bool appendTrace(const RunOptions &o, tfc_program *program, unsigned run,
                 std::ofstream &out) {
  out << "{\"run\": " << run;
  for (size_t i = 0, e = tfc_program_binding_count(program); i < e; ++i) {
    tfc_binding b;
    if (tfc_status s = tfc_program_binding(program, i, &b))
      return fail(o, "cannot describe binding", s);
    if (b.rank != 0 || (b.role != TFC_ROLE_OUTPUT && b.role != TFC_ROLE_STATE))
      continue;
    uint8_t raw[8] = {0};
    if (b.bytes > sizeof raw)
      continue;
    if (tfc_status s = tfc_program_get(program, b.name, raw, b.bytes))
      return fail(o, std::string("cannot read '") + b.name + "'", s);
    std::string value;
    switch (b.dtype) {
    case TFC_DTYPE_F32: {
      float v;
      std::memcpy(&v, raw, 4);
      value = jsonNumber(v, 9);
      break;
    }
    case TFC_DTYPE_F64: {
      double v;
      std::memcpy(&v, raw, 8);
      value = jsonNumber(v, 17);
      break;
    }
    case TFC_DTYPE_I1:
      value = raw[0] ? "true" : "false";
      break;
    case TFC_DTYPE_U8:
      value = std::to_string(raw[0]);
      break;
    case TFC_DTYPE_I32: {
      int32_t v;
      std::memcpy(&v, raw, 4);
      value = std::to_string(v);
      break;
    }
    case TFC_DTYPE_I64: {
      int64_t v;
      std::memcpy(&v, raw, 8);
      value = std::to_string(v);
      break;
    }
    default:
      continue; // 16-bit scalars are not traced.
    }
    out << ", \"" << b.name << "\": " << value;
  }
  out << "}\n";
  return static_cast<bool>(out);
}

/// One line on how the kernels were prepared ("cold" when anything was
/// compiled, "warm" when everything came from the cache).
void printCompileInfo(const char *label, const tfc_compile_info &c) {
  std::printf("%s: %zu kernels (%zu distinct) prepared in %.1f ms on %d "
              "thread%s: %zu compiled, %zu from the cache\n",
              label, c.kernels, c.distinct, c.wall_ms, c.threads,
              c.threads == 1 ? "" : "s", c.compiled, c.cache_hits);
}

/// --profile: the cold and warm kernel-compile times (this load, and a
/// second load of the same artifact, which finds every kernel cached), then
/// each step's median time and achieved bandwidth (bytes read + written
/// over time) against a 64 MiB device-to-device copy.
bool runProfile(const RunOptions &o, const std::string &artifactDir,
                tfc_device *dev, tfc_program *program,
                const std::string &entry) {
  tfc_compile_info first{};
  if (tfc_status s = tfc_program_compile_info(program, &first))
    return fail(o, "cannot read the compile info", s);
  tfc_program *again = nullptr;
  if (tfc_status s = tfc_program_load(dev, artifactDir.c_str(), &again))
    return fail(o, "reloading '" + artifactDir + "' failed", s);
  tfc_compile_info second{};
  tfc_status s2 = tfc_program_compile_info(again, &second);
  tfc_program_destroy(again);
  if (s2)
    return fail(o, "cannot read the compile info", s2);
  printCompileInfo(first.compiled > 0 ? "kernel compile (cold)"
                                      : "kernel compile (this load, cached)",
                   first);
  printCompileInfo("kernel compile (warm reload)", second);

  const tfc_step_profile *steps = nullptr;
  size_t count = 0;
  if (tfc_status s = tfc_program_profile(program, entry.c_str(),
                                         static_cast<int>(o.profile), &steps,
                                         &count))
    return fail(o, "profiling '" + entry + "' failed", s);
  const size_t copyBytes = size_t(64) << 20;
  double copyMs = 0;
  if (tfc_status s = tfc_program_profile_copy(
          program, copyBytes, static_cast<int>(o.profile), &copyMs))
    return fail(o, "profiling a device copy failed", s);
  auto gbps = [](double bytes, double ms) {
    return ms > 0 ? bytes / ms / 1e6 : 0.0;
  };
  double copyGbps = gbps(2.0 * copyBytes, copyMs);
  std::printf("%-14s %-17s %12s %10s %9s %8s\n", "step", "kind", "bytes",
              "median_ms", "GB/s", "of_copy");
  double total = 0;
  for (size_t i = 0; i < count; ++i) {
    double bw = gbps(double(steps[i].bytes), steps[i].median_ms);
    total += steps[i].median_ms;
    std::printf("%-14s %-17s %12zu %10.4f %9.2f %7.1f%%\n", steps[i].label,
                steps[i].kind, steps[i].bytes, steps[i].median_ms, bw,
                copyGbps > 0 ? 100.0 * bw / copyGbps : 0.0);
  }
  std::printf(
      "device copy of %zu MiB: %.4f ms, %.2f GB/s; steps total %.3f ms\n",
      copyBytes >> 20, copyMs, copyGbps, total);
  if (o.profileJson.empty())
    return true;
  std::ofstream out(o.profileJson);
  auto compileJson = [](const tfc_compile_info &c) {
    return "{\"kernels\": " + std::to_string(c.kernels) +
           ", \"distinct\": " + std::to_string(c.distinct) +
           ", \"compiled\": " + std::to_string(c.compiled) +
           ", \"cache_hits\": " + std::to_string(c.cache_hits) +
           ", \"threads\": " + std::to_string(c.threads) +
           ", \"wall_ms\": " + jsonNumber(c.wall_ms, 6) + "}";
  };
  out << "{\"compile\": {\"first\": " << compileJson(first)
      << ", \"warm\": " << compileJson(second) << "}, \"copy\": {\"bytes\": "
      << copyBytes << ", \"median_ms\": " << copyMs
      << ", \"gbps\": " << copyGbps << "}, \"steps\": [";
  for (size_t i = 0; i < count; ++i)
    out << (i ? ", " : "") << "{\"label\": \"" << steps[i].label
        << "\", \"kind\": \"" << steps[i].kind
        << "\", \"bytes\": " << steps[i].bytes
        << ", \"median_ms\": " << steps[i].median_ms << ", \"gbps\": "
        << gbps(double(steps[i].bytes), steps[i].median_ms) << "}";
  out << "]}\n";
  if (!out)
    return fail(o, "cannot write '" + o.profileJson + "'");
  return true;
}

/// Runs `entry` once, or one accumulated optimizer step.
bool runOnce(const RunOptions &o, tfc_program *program,
             const std::string &entry) {
  std::vector<std::string> entries;
  if (o.accumulate > 0 && o.entry.empty()) {
    entries.assign(o.accumulate, "accumulate_step");
    entries.push_back("apply_step");
  } else {
    entries.push_back(entry);
  }
  for (const std::string &name : entries)
    if (tfc_status s = tfc_program_run(program, name.c_str()))
      return fail(o, "running '" + name + "' failed", s);
  return true;
}

/// The entry a run means: --entry, else "forward", else the program's
/// only entry (refresh entries, which the runtime runs by itself, aside).
/// Empty (after an error line) when there is no such entry.
std::string resolveEntry(const RunOptions &o, tfc_program *program) {
  if (!o.entry.empty())
    return o.entry;
  if (o.accumulate > 0)
    return "accumulate_step";
  std::vector<std::string> runnable;
  std::string names;
  for (size_t i = 0, count = tfc_program_entry_count(program); i < count;
       ++i) {
    std::string name = tfc_program_entry_name(program, i);
    if (name == "forward")
      return name;
    if (tfc_program_entry_is_refresh(program, i))
      continue;
    names += (runnable.empty() ? "" : ", ") + name;
    runnable.push_back(name);
  }
  if (runnable.size() == 1)
    return runnable.front();
  if (runnable.empty()) {
    fail(o, "the program has no entry to run" +
                std::string(tfc_program_entry_count(program)
                                ? " (only refresh entries, which run by "
                                  "themselves)"
                                : ""));
    return "";
  }
  fail(o, "the program has entries " + names + ": name one with --entry" +
              (names.find("accumulate_step") != std::string::npos
                   ? " (or --accumulate K for optimizer steps)"
                   : ""));
  return "";
}

} // namespace

bool probeDevice(const RunOptions &o) {
  tfc_device *dev = nullptr;
  if (tfc_status s = tfc_device_create(o.probeDevice.c_str(), &dev))
    return fail(o, "device '" + o.probeDevice + "' unavailable", s);
  std::printf("%s\n", tfc_device_description(dev));
  tfc_device_destroy(dev);
  return true;
}

bool runArtifact(const std::string &artifactDir, const RunOptions &o,
                 tfc_device *device, bool *loadFailed) {
  if (loadFailed)
    *loadFailed = false;
  Runtime rt;
  rt.dev = device;
  if (!rt.dev)
    if (tfc_status s = openDevice(o.tool.c_str(), o.device, &rt.dev))
      return fail(o, "cannot open device '" + o.device + "'", s);
  if (!o.quiet)
    std::printf("device: %s\n", tfc_device_description(rt.dev));
  auto loadStart = std::chrono::steady_clock::now();
  if (tfc_status s =
          tfc_program_load(rt.dev, artifactDir.c_str(), &rt.program)) {
    if (loadFailed)
      *loadFailed = true;
    return fail(o, "cannot load '" + artifactDir + "'", s);
  }
  if (double ms = msSince(loadStart); ms > kProgressMs) {
    uint64_t bytes = 0;
    size_t count = tfc_program_binding_count(rt.program);
    for (size_t i = 0; i < count; ++i) {
      tfc_binding b;
      if (tfc_status s = tfc_program_binding(rt.program, i, &b))
        return fail(o, "cannot describe binding", s);
      bytes += b.bytes;
    }
    progress(o, "loaded the program in " + seconds(ms) + " (" +
                    std::to_string(count) + " bindings, " +
                    grouped(bytes >> 20) + " MiB)");
  }
  if (!o.quiet && o.profile == 0) {
    tfc_compile_info info{};
    if (tfc_status s = tfc_program_compile_info(rt.program, &info))
      return fail(o, "cannot read the compile info", s);
    printCompileInfo("kernels", info);
  }

  // Random values first, so --inputs overrides whatever it provides.
  if (o.haveSeed && !fillRandom(o, rt.program))
    return false;
  std::vector<std::string> given;
  if (!o.inputs.empty()) {
    // Tensors the program has no external for are skipped with a notice, so
    // one file serves a model's forward and its training step.
    given = safetensorsNames(o.inputs);
    std::vector<std::string> extra = namingNoExternal(given, rt.program);
    if (tfc_status s = tfc_program_load_safetensors(
            rt.program, o.inputs.c_str(), /*ignore_unknown=*/!extra.empty()))
      return fail(o, "cannot read inputs", s);
    if (!extra.empty()) {
      std::string names;
      for (size_t i = 0; i < extra.size() && i < 5; ++i)
        names += (i ? ", " : "") + extra[i];
      if (extra.size() > 5)
        names += ", ...";
      progress(o, "--inputs: ignored " + std::to_string(extra.size()) +
                      " tensor(s) the program has no external for: " + names);
    }
  }

  noteZeroState(o, rt.program, given);

  std::string entry = resolveEntry(o, rt.program);
  if (entry.empty())
    return false;
  bool accumulated = o.accumulate > 0 && o.entry.empty();
  if (accumulated && o.profile > 0)
    return fail(o, "--profile times one entry: name it with --entry "
                   "(accumulate_step or apply_step)");
  if (o.steps == 0)
    return fail(o, "--steps must be at least 1");
  std::ofstream trace;
  if (!o.traceFile.empty()) {
    trace.open(o.traceFile);
    if (!trace)
      return fail(o, "cannot write '" + o.traceFile + "'");
  }
  for (unsigned i = 0; i < o.steps; ++i) {
    auto stepStart = std::chrono::steady_clock::now();
    if (!runOnce(o, rt.program, entry))
      return false;
    if (double ms = msSince(stepStart); ms > kProgressMs)
      progress(o, "run " + std::to_string(i + 1) + "/" +
                      std::to_string(o.steps) + " of '" + entry + "' took " +
                      seconds(ms));
    if (trace.is_open() && !appendTrace(o, rt.program, i, trace))
      return fail(o, "cannot write '" + o.traceFile + "'");
  }
  if (!o.stateOut.empty())
    if (tfc_status s = tfc_program_save_safetensors(
            rt.program, o.stateOut.c_str(), TFC_ROLE_PARAM | TFC_ROLE_STATE))
      return fail(o, "cannot write state", s);
  if (o.repeat > 0) {
    std::vector<double> runs;
    for (unsigned i = 0; i < o.repeat; ++i) {
      auto start = std::chrono::steady_clock::now();
      if (!runOnce(o, rt.program, entry))
        return false;
      runs.push_back(msSince(start));
    }
    std::vector<double> sorted = runs;
    std::sort(sorted.begin(), sorted.end());
    size_t n = sorted.size();
    double median =
        n % 2 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
    if (!o.quiet)
      std::printf("%s: median %.3f ms over %u runs\n",
                  accumulated ? "optimizer step" : entry.c_str(), median,
                  o.repeat);
    if (!o.timingJson.empty()) {
      std::ofstream out(o.timingJson);
      out << "{\"median_ms\": " << median << ", \"runs_ms\": [";
      for (size_t i = 0; i < runs.size(); ++i)
        out << (i ? ", " : "") << runs[i];
      out << "]}\n";
      if (!out)
        return fail(o, "cannot write '" + o.timingJson + "'");
    }
  }
  if (o.profile > 0 && !runProfile(o, artifactDir, rt.dev, rt.program, entry))
    return false;
  if (!o.outputs.empty())
    if (tfc_status s = tfc_program_save_safetensors(
            rt.program, o.outputs.c_str(), TFC_ROLE_OUTPUT))
      return fail(o, "cannot write outputs", s);
  if (!o.quiet)
    printSummary(rt.program);
  return true;
}

} // namespace tfc::tools
