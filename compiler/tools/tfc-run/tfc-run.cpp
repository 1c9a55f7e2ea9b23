//===- tfc-run.cpp - compile (or load) and run a tfc program --------------===//
//
// tfc-run MODEL.mlir|ARTIFACT_DIR [options]
//
// Compiles a model function in process (JIT, cached) or loads an artifact,
// binds its parameters and inputs from safetensors (or random values from
// --seed), runs an entry (or, for a training step with gradient
// accumulation, accumulate_step K times and apply_step) on the host or cuda
// backend and writes the outputs to safetensors. Prints a short summary; errors
// are one line on stderr and exit code 1.
//
//===----------------------------------------------------------------------===//

#include "compiler/jit/JitCompiler.h"
#include "compiler/tools/common/OpenDevice.h"
#include "tfc/runtime.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <random>
#include <string>
#include <vector>

namespace cl = llvm::cl;

static cl::OptionCategory category("tfc-run options");
static cl::opt<std::string> input(cl::Positional,
                                  cl::desc("<model.mlir | artifact dir>"),
                                  cl::cat(category));
static cl::opt<std::string>
    function("function", cl::desc("Function of the model to compile"),
             cl::init("loss"), cl::cat(category));
static cl::opt<bool>
    grad("grad",
         cl::desc("Compile the gradient of --function (--tfc-autodiff): "
                  "outputs out0 = loss, out1.. = one gradient per tfc.param "
                  "argument in order"),
         cl::cat(category));
static cl::opt<std::string> trainStep(
    "train-step",
    cl::desc("Compile a training step (--tfc-train-pipeline) with these "
             "options, e.g. \"optimizer=adamw max-grad-norm=1\"; the default "
             "entry becomes train_step, or with accumulate-steps=K one "
             "optimizer step: accumulate_step K times, then apply_step"),
    cl::cat(category));
static cl::opt<std::string> entry("entry",
                                  cl::desc("Entry to run (default: forward, "
                                           "train_step with --train-step; "
                                           "any one entry, e.g. "
                                           "accumulate_step, to drive a "
                                           "step by hand)"),
                                  cl::init("forward"), cl::cat(category));
static cl::opt<unsigned> steps(
    "steps",
    cl::desc("Run the entry this many times in one process (params and "
             "state persist between runs, e.g. training steps)"),
    cl::init(1), cl::cat(category));
static cl::opt<std::string> traceFile(
    "trace",
    cl::desc("Write one JSON line per run of --steps with the values of "
             "every scalar output and state (loss, step, loss_scale, ...)"),
    cl::cat(category));
static cl::opt<std::string>
    stateOut("state-out",
             cl::desc("After the runs, write params and state to this "
                      "safetensors file (loadable again with --inputs)"),
             cl::cat(category));
static cl::opt<std::string>
    device("device", cl::desc("Backend: host, cuda, or auto (cuda if usable)"),
           cl::init("auto"), cl::cat(category));
static cl::opt<std::string>
    inputs("inputs", cl::desc("Safetensors file with parameters and inputs"),
           cl::cat(category));
static cl::opt<unsigned> seed(
    "seed",
    cl::desc("Fill unset parameters/inputs randomly from this seed (floats "
             "N(0,1), integers uniform in [0, --int-range))"),
    cl::cat(category));
static cl::opt<int64_t> intRange("int-range",
                                 cl::desc("Upper bound of random integers"),
                                 cl::init(2), cl::cat(category));
static cl::opt<std::string>
    outputs("outputs", cl::desc("Write the outputs to this safetensors file"),
            cl::cat(category));
static cl::opt<std::string>
    keepArtifact("emit-artifact",
                 cl::desc("Also write the compiled artifact to this directory"),
                 cl::cat(category));
static cl::opt<unsigned> repeat(
    "repeat", cl::desc("Run the entry this many times after one warm-up run"),
    cl::init(0), cl::cat(category));
static cl::opt<std::string>
    timingJson("timing-json",
               cl::desc("With --repeat: write {median_ms, runs_ms} here"),
               cl::cat(category));
static cl::opt<unsigned> profile(
    "profile",
    cl::desc("Time each step of the entry over this many runs (waiting for "
             "each step) and print its bandwidth next to a device copy's"),
    cl::init(0), cl::cat(category));
static cl::opt<std::string>
    profileJson("profile-json",
                cl::desc("With --profile: write the step table as JSON here"),
                cl::cat(category));
static cl::opt<bool> quiet("quiet", cl::desc("Print only errors"),
                           cl::cat(category));
static cl::opt<std::string> probeDevice(
    "probe-device",
    cl::desc("Only check that a backend can be opened (exit 0) or not (1)"),
    cl::cat(category));

namespace {

/// Without --entry, a --train-step with accumulate-steps=K > 1 runs one
/// optimizer step per run: accumulate_step K times on the bound batch, then
/// apply_step. 0 otherwise (run --entry).
int64_t accumulateSteps = 0;

/// Prints `what` and the status message on one line; frees the status.
bool fail(const std::string &what, tfc_status status = nullptr) {
  std::fprintf(stderr, "tfc-run: %s%s%s\n", what.c_str(),
               status ? ": " : "", status ? tfc_status_message(status) : "");
  tfc_status_free(status);
  return false;
}

/// Owns the runtime objects for the tool's lifetime.
struct Runtime {
  tfc_device *dev = nullptr;
  tfc_program *program = nullptr;
  ~Runtime() {
    tfc_program_destroy(program);
    tfc_device_destroy(dev);
  }
};

bool fillRandom(tfc_program *program) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> normal(0.0, 1.0);
  std::uniform_int_distribution<int64_t> uniform(0, std::max<int64_t>(intRange, 1) - 1);
  for (size_t i = 0, e = tfc_program_binding_count(program); i < e; ++i) {
    tfc_binding b;
    if (tfc_status s = tfc_program_binding(program, i, &b))
      return fail("cannot describe binding", s);
    // State starts zeroed (a first training step relies on it).
    if (b.role == TFC_ROLE_OUTPUT || b.role == TFC_ROLE_STATE)
      continue;
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
    if (tfc_status s = tfc_program_set(program, b.name, bytes.data(), bytes.size()))
      return fail(std::string("cannot set '") + b.name + "'", s);
  }
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
      if (tfc_status s = tfc_program_get(program, b.name, values.data(), b.bytes))
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
bool appendTrace(tfc_program *program, unsigned run, std::ofstream &out) {
  out << "{\"run\": " << run;
  for (size_t i = 0, e = tfc_program_binding_count(program); i < e; ++i) {
    tfc_binding b;
    if (tfc_status s = tfc_program_binding(program, i, &b))
      return fail("cannot describe binding", s);
    if (b.rank != 0 || (b.role != TFC_ROLE_OUTPUT && b.role != TFC_ROLE_STATE))
      continue;
    uint8_t raw[8] = {0};
    if (b.bytes > sizeof raw)
      continue;
    if (tfc_status s = tfc_program_get(program, b.name, raw, b.bytes))
      return fail(std::string("cannot read '") + b.name + "'", s);
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

/// --profile: each step's median time and achieved bandwidth (bytes read +
/// written over time), against a 64 MiB device-to-device copy.
bool runProfile(tfc_program *program) {
  const tfc_step_profile *steps = nullptr;
  size_t count = 0;
  if (tfc_status s = tfc_program_profile(program, entry.c_str(),
                                         static_cast<int>(profile.getValue()),
                                         &steps, &count))
    return fail("profiling '" + entry + "' failed", s);
  const size_t copyBytes = size_t(64) << 20;
  double copyMs = 0;
  if (tfc_status s = tfc_program_profile_copy(
          program, copyBytes, static_cast<int>(profile.getValue()), &copyMs))
    return fail("profiling a device copy failed", s);
  auto gbps = [](double bytes, double ms) { return ms > 0 ? bytes / ms / 1e6 : 0.0; };
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
  std::printf("device copy of %zu MiB: %.4f ms, %.2f GB/s; steps total %.3f ms\n",
              copyBytes >> 20, copyMs, copyGbps, total);
  if (profileJson.empty())
    return true;
  std::ofstream out(profileJson);
  out << "{\"copy\": {\"bytes\": " << copyBytes << ", \"median_ms\": " << copyMs
      << ", \"gbps\": " << copyGbps << "}, \"steps\": [";
  for (size_t i = 0; i < count; ++i)
    out << (i ? ", " : "") << "{\"label\": \"" << steps[i].label
        << "\", \"kind\": \"" << steps[i].kind << "\", \"bytes\": "
        << steps[i].bytes << ", \"median_ms\": " << steps[i].median_ms
        << ", \"gbps\": " << gbps(double(steps[i].bytes), steps[i].median_ms)
        << "}";
  out << "]}\n";
  if (!out)
    return fail("cannot write '" + profileJson + "'");
  return true;
}

/// Runs --entry once, or one accumulated optimizer step.
bool runOnce(tfc_program *program) {
  std::vector<std::string> entries;
  if (accumulateSteps > 0) {
    entries.assign(accumulateSteps, "accumulate_step");
    entries.push_back("apply_step");
  } else {
    entries.push_back(entry);
  }
  for (const std::string &name : entries)
    if (tfc_status s = tfc_program_run(program, name.c_str()))
      return fail("running '" + name + "' failed", s);
  return true;
}

bool run() {
  Runtime rt;
  if (!probeDevice.empty()) {
    if (tfc_status s = tfc_device_create(probeDevice.c_str(), &rt.dev))
      return fail("device '" + probeDevice + "' unavailable", s);
    std::printf("%s\n", tfc_device_description(rt.dev));
    return true;
  }
  if (input.empty())
    return fail("no input: pass a model (.mlir) or an artifact directory");

  std::string artifactDir = input;
  if (!llvm::sys::fs::is_directory(input)) {
    tfc::JitOptions options;
    options.function = function;
    options.grad = grad;
    options.trainStepOptions = trainStep;
    // A bare --train-step= still asks for a training step of --function.
    if (trainStep.getNumOccurrences() && trainStep.empty())
      options.trainStepOptions = "function=" + function;
    tfc::JitResult result;
    std::string error;
    auto start = std::chrono::steady_clock::now();
    if (!tfc::compileModel(input, options, result, error)) {
      std::fprintf(stderr, "%s", error.c_str());
      return fail("compilation of '" + input + "' failed");
    }
    if (!keepArtifact.empty() &&
        !tfc::compileModelTo(input, options, keepArtifact, error)) {
      std::fprintf(stderr, "%s", error.c_str());
      return fail("cannot write the artifact to '" + keepArtifact + "'");
    }
    artifactDir = result.artifactDir;
    if (result.accumulateSteps > 1 && !entry.getNumOccurrences())
      accumulateSteps = result.accumulateSteps;
    double ms = std::chrono::duration<double, std::milli>(
                    std::chrono::steady_clock::now() - start)
                    .count();
    if (!quiet)
      std::printf("compiled %s (%s, %.0f ms)\n", input.c_str(),
                  result.cacheHit ? "cached" : "fresh", ms);
  }

  if (tfc_status s = tfc::openDevice("tfc-run", device, &rt.dev))
    return fail("cannot open device '" + device + "'", s);
  if (!quiet)
    std::printf("device: %s\n", tfc_device_description(rt.dev));
  if (tfc_status s = tfc_program_load(rt.dev, artifactDir.c_str(), &rt.program))
    return fail("cannot load '" + artifactDir + "'", s);

  // Random values first, so --inputs overrides whatever it provides.
  if (seed.getNumOccurrences() && !fillRandom(rt.program))
    return false;
  if (!inputs.empty())
    if (tfc_status s = tfc_program_load_safetensors(rt.program, inputs.c_str(),
                                                   /*ignore_unknown=*/0))
      return fail("cannot read inputs", s);

  if (trainStep.getNumOccurrences() && !entry.getNumOccurrences())
    entry = accumulateSteps > 0 ? "accumulate_step" : "train_step";
  if (accumulateSteps > 0 && profile > 0)
    return fail("--profile times one entry: name it with --entry "
                "(accumulate_step or apply_step)");
  if (steps == 0)
    return fail("--steps must be at least 1");
  std::ofstream trace;
  if (!traceFile.empty()) {
    trace.open(traceFile);
    if (!trace)
      return fail("cannot write '" + traceFile + "'");
  }
  for (unsigned i = 0; i < steps; ++i) {
    if (!runOnce(rt.program))
      return false;
    if (trace.is_open() && !appendTrace(rt.program, i, trace))
      return fail("cannot write '" + traceFile + "'");
  }
  if (!stateOut.empty())
    if (tfc_status s = tfc_program_save_safetensors(
            rt.program, stateOut.c_str(), TFC_ROLE_PARAM | TFC_ROLE_STATE))
      return fail("cannot write state", s);
  if (repeat > 0) {
    std::vector<double> runs;
    for (unsigned i = 0; i < repeat; ++i) {
      auto start = std::chrono::steady_clock::now();
      if (!runOnce(rt.program))
        return false;
      runs.push_back(std::chrono::duration<double, std::milli>(
                         std::chrono::steady_clock::now() - start)
                         .count());
    }
    std::vector<double> sorted = runs;
    std::sort(sorted.begin(), sorted.end());
    double median = sorted.size() % 2
                        ? sorted[sorted.size() / 2]
                        : (sorted[sorted.size() / 2 - 1] + sorted[sorted.size() / 2]) / 2;
    if (!quiet)
      std::printf("%s: median %.3f ms over %u runs\n",
                  accumulateSteps > 0 ? "optimizer step" : entry.c_str(),
                  median, repeat.getValue());
    if (!timingJson.empty()) {
      std::ofstream out(timingJson);
      out << "{\"median_ms\": " << median << ", \"runs_ms\": [";
      for (size_t i = 0; i < runs.size(); ++i)
        out << (i ? ", " : "") << runs[i];
      out << "]}\n";
      if (!out)
        return fail("cannot write '" + timingJson + "'");
    }
  }
  if (profile > 0 && !runProfile(rt.program))
    return false;
  if (!outputs.empty())
    if (tfc_status s = tfc_program_save_safetensors(rt.program, outputs.c_str(),
                                                   TFC_ROLE_OUTPUT))
      return fail("cannot write outputs", s);
  if (!quiet)
    printSummary(rt.program);
  return true;
}

} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  cl::HideUnrelatedOptions(category);
  cl::ParseCommandLineOptions(
      argc, argv,
      "tfc-run: compile (or load) a tfc program and run it\n\n"
      "  tfc-run model.mlir --inputs in.safetensors --outputs out.safetensors\n"
      "  tfc-run model.mlir --seed 0 --device host\n"
      "  tfc-run artifact-dir --inputs in.safetensors\n");
  return run() ? 0 : 1;
}
