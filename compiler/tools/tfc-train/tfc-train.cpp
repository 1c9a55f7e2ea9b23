//===- tfc-train.cpp - train a tfc model -----------------------------------===//
//
// tfc-train MODEL.mlir --data FILE|synthetic:copy --steps N --out DIR [...]
//
// Compiles the model's train step in process (--tfc-train-pipeline through
// the JIT), initializes parameters GPT-2 style, and runs N optimizer steps on
// random windows of the data, with a host-side learning-rate schedule fed as
// the `lr` input. --accumulate K makes each step K micro-batches
// (accumulate_step) and one apply_step. Writes DIR/metrics.jsonl, DIR/loss.svg,
// DIR/memory.md (+ memory.json) and DIR/checkpoint/; --resume DIR continues bit-exactly.
//
//===----------------------------------------------------------------------===//

#include "compiler/jit/JitCompiler.h"
#include "dialects/tfc/TfcKernelSchedule.h"
#include "passes/layout/Passes.h"
#include "passes/precision/PrecisionPolicy.h"
#include "runtime/tools/common/OpenDevice.h"
#include "compiler/tools/tfc-train/Checkpoint.h"
#include "compiler/tools/tfc-train/Data.h"
#include "compiler/tools/tfc-train/Metrics.h"
#include "compiler/tools/tfc-train/Model.h"
#include "compiler/tools/tfc-train/ProgramSetup.h"
#include "compiler/tools/tfc-train/Safetensors.h"
#include "compiler/tools/tfc-train/Report.h"
#include "compiler/tools/tfc-train/Schedule.h"
#include "tfc/runtime.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"

#include <algorithm>
#include <chrono>
#include <csignal>
#include <functional>
#include <set>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include <unistd.h>

namespace cl = llvm::cl;
using namespace tfc::train;

static cl::OptionCategory category("tfc-train options");
static cl::opt<std::string> model(cl::Positional, cl::desc("<model.mlir>"),
                                  cl::cat(category));
static cl::opt<std::string>
    data("data", cl::desc("Training text (byte tokens), synthetic:copy, or "
                          "FILE.safetensors: examples, one tensor [N, ...] "
                          "per model input [B, ...]"),
         cl::cat(category));
static cl::opt<int64_t> steps("steps", cl::desc("Optimizer steps in all"),
                              cl::init(100), cl::cat(category));
static cl::opt<int64_t>
    batch("batch", cl::desc("Batch size (must equal the model's)"),
          cl::init(0), cl::cat(category));
static cl::opt<std::string> optimizer(
    "optimizer",
    cl::desc("adamw, adam, sgd, adafactor, adamw8bit, rmsprop, adagrad, "
             "adamax, nadam or radam (torch.optim's defaults but --lr, "
             "--weight-decay and --optimizer-options)"),
    cl::init("adamw"), cl::cat(category));
static cl::opt<std::string> optimizerOptions(
    "optimizer-options",
    cl::desc("The optimizer's hyper-parameters as the train-step pass spells "
             "them, e.g. \"beta1=0.8 beta2=0.95\", \"momentum=0.9 "
             "nesterov=true\" or \"alpha=0.9 centered=true\" (keys: beta1, "
             "beta2, eps, momentum, nesterov, alpha, centered, lr-decay, "
             "initial-accumulator-value, momentum-decay, nadam-fixed-product, "
             "decay-all, block-size, beta2-decay, eps1, eps2, clip-threshold; "
             "docs/training.md)"),
    cl::init(""), cl::cat(category));
static cl::opt<double> lr("lr", cl::desc("Peak learning rate"),
                          cl::init(3e-4), cl::cat(category));
static cl::opt<std::string>
    schedule("schedule",
             cl::desc("constant, warmup-cosine or warmup-linear"),
             cl::init("constant"), cl::cat(category));
static cl::opt<int64_t> warmup("warmup", cl::desc("Warmup steps"),
                               cl::init(0), cl::cat(category));
static cl::opt<double> minLr("min-lr", cl::desc("Final rate of decay"),
                             cl::init(0.0), cl::cat(category));
static cl::opt<double>
    weightDecay("weight-decay",
                cl::desc("Weight decay (default: 0.01 for adamw and "
                         "adamw8bit, else 0)"),
                cl::init(-1.0), cl::cat(category));
static cl::opt<double>
    maxGradNorm("max-grad-norm",
                cl::desc("Global gradient-norm clipping (0: off)"),
                cl::init(0.0), cl::cat(category));
static cl::opt<double> clipGradValue(
    "clip-grad-value",
    cl::desc("Clamp every gradient element to [-v, v] before any norm "
             "clipping, as torch.nn.utils.clip_grad_value_ (0: off)"),
    cl::init(0.0), cl::cat(category));
static cl::opt<bool> lossScaling("loss-scaling",
                                 cl::desc("Dynamic loss scaling (default: on "
                                          "for --precision fp16, else off)"),
                                 cl::cat(category));
static cl::opt<std::string> precision(
    "precision",
    cl::desc("f32 (default), tf32 (f32 GEMMs on TF32 tensor cores), bf16 or "
             "fp16 (mixed precision with f32 master weights: "
             "--tfc-auto-mixed-precision)"),
    cl::init("f32"), cl::cat(category));
static cl::opt<bool> optimizerInBackward(
    "optimizer-in-backward",
    cl::desc("Update each parameter as soon as its gradient is complete, so "
             "no full set of gradients is ever live (not with "
             "--max-grad-norm, --loss-scaling, --accumulate or an optimizer "
             "built from plain ops: adafactor, rmsprop, adagrad, adamax, "
             "nadam, radam)"),
    cl::cat(category));
static cl::opt<std::string> recompute(
    "recompute",
    cl::desc("none (default), cheap (recompute pointwise ops, views and "
             "normalizations in the backward instead of saving them) or "
             "blocks (save only each layer's input, rerun the layer's "
             "forward in its backward): --tfc-recompute"),
    cl::init("none"), cl::cat(category));
static cl::opt<std::string>
    pad("pad",
        cl::desc("Shape padding: auto (the multiples the target's tensor "
                 "cores want), none, or N (every GEMM dimension to a multiple "
                 "of N); exact, parameters keep their shapes"),
        cl::init("auto"), cl::cat(category));
static cl::opt<std::string> device("device", cl::desc("host, cuda or auto"),
                                   cl::init("auto"), cl::cat(category));
static cl::opt<std::string>
    target("target",
           cl::desc("Machine the kernels are scheduled for: sm_80, sm_90, "
                    "host (no CUDA sources) or auto (host when the host "
                    "backend runs: --device host, or auto without a usable "
                    "GPU; else sm_90); not recorded in checkpoints"),
           cl::init("auto"), cl::cat(category));
static cl::opt<std::string>
    outDir("out", cl::desc("Output directory (default: the --resume one)"),
           cl::cat(category));
static cl::opt<std::string> init(
    "init",
    cl::desc("Initial parameters and model state from a safetensors file "
             "(tfc-import-torch --weights) instead of GPT-2 initialization: "
             "it must hold every parameter"),
    cl::value_desc("FILE.safetensors"), cl::cat(category));
static cl::opt<uint64_t> seed("seed", cl::desc("Seed of init and data"),
                              cl::init(0), cl::cat(category));
static cl::opt<std::string>
    resume("resume", cl::desc("Continue from the checkpoint in this directory"),
           cl::cat(category));
static cl::opt<int64_t> logEvery("log-every",
                                 cl::desc("Log every K steps (not a terminal)"),
                                 cl::init(10), cl::cat(category));
static cl::opt<int64_t>
    checkpointEvery("checkpoint-every",
                    cl::desc("Checkpoint every K steps (0: only at the end)"),
                    cl::init(0), cl::cat(category));
static cl::opt<int64_t>
    stopAt("stop-at",
           cl::desc("Stop (with a checkpoint) after this step, as an "
                    "interrupted run would"),
           cl::init(0), cl::cat(category));
static cl::opt<int64_t> accumulate(
    "accumulate",
    cl::desc("Micro-batches of --batch per optimizer step (gradient "
             "accumulation: accumulate_step K times, then apply_step)"),
    cl::init(1), cl::cat(category));
static cl::opt<bool> overwrite(
    "overwrite",
    cl::desc("Replace the run already in --out (its checkpoint and "
             "metrics) instead of refusing to start"),
    cl::cat(category));
static cl::opt<std::string> function("function",
                                     cl::desc("The loss function"),
                                     cl::init("loss"), cl::cat(category));

namespace {

/// The signal (SIGINT, SIGTERM) that asked the training loop to stop after
/// its current step and checkpoint; 0 while none did.
volatile std::sig_atomic_t interruptSignal = 0;
/// main's exit code when run() succeeds: 128 + that signal when it stopped
/// the run early.
int interruptedExitCode = 0;

extern "C" void onInterrupt(int sig) {
  if (interruptSignal) {
    // The second one: stop at once, as the default action would.
    std::signal(sig, SIG_DFL);
    std::raise(sig);
    return;
  }
  interruptSignal = sig;
  static const char message[] =
      "\ntfc-train: interrupted: finishing this step and writing a "
      "checkpoint (interrupt again to stop at once, losing it)\n";
  ssize_t ignored = ::write(2, message, sizeof(message) - 1);
  (void)ignored;
}

/// From here on SIGINT and SIGTERM stop the training loop after its step.
void catchInterrupts() {
  struct sigaction action = {};
  action.sa_handler = onInterrupt;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESTART;
  sigaction(SIGINT, &action, nullptr);
  sigaction(SIGTERM, &action, nullptr);
}

/// Whether `dir` holds a run: a checkpoint or metrics.
bool holdsRun(const std::string &dir) {
  for (const char *name :
       {"checkpoint", "checkpoint.old", "metrics.jsonl"})
    if (llvm::sys::fs::exists(dir + "/" + name))
      return true;
  return false;
}

bool fail(const std::string &what, tfc_status status = nullptr) {
  std::fprintf(stderr, "tfc-train: %s%s%s\n", what.c_str(),
               status ? ": " : "", status ? tfc_status_message(status) : "");
  tfc_status_free(status);
  return false;
}

// Option values as text, exactly (doubles with 17 digits), so a checkpoint
// restores them bit for bit.
std::string text(const std::string &v) { return v; }
std::string text(bool v) { return v ? "true" : "false"; }
std::string text(int64_t v) { return std::to_string(v); }
std::string text(uint64_t v) { return std::to_string(v); }
std::string text(double v) {
  char buffer[40];
  std::snprintf(buffer, sizeof(buffer), "%.17g", v);
  return buffer;
}
bool parse(const std::string &s, std::string &v) { return v = s, true; }
bool parse(const std::string &s, bool &v) {
  v = s == "true";
  return s == "true" || s == "false";
}
template <typename T> bool parse(const std::string &s, T &v) {
  return !llvm::StringRef(s).getAsInteger(10, v);
}
bool parse(const std::string &s, double &v) {
  return !llvm::StringRef(s).getAsDouble(v);
}

/// The options a checkpoint records and a resume reuses.
struct Sticky {
  const char *name;
  std::function<std::string()> get;
  std::function<bool(const std::string &)> set;
  std::function<bool()> given;
};
template <typename T> Sticky sticky(const char *name, cl::opt<T> &opt) {
  return Sticky{name, [&opt] { return text(T(opt.getValue())); },
                [&opt](const std::string &s) {
                  T v;
                  if (!parse(s, v))
                    return false;
                  opt.setValue(v);
                  return true;
                },
                [&opt] { return opt.getNumOccurrences() > 0; }};
}
std::vector<Sticky> stickyOptions() {
  // --steps may change on resume (train longer); everything that shapes the
  // compiled step, the data stream or the schedule may not.
  return {sticky("model", model),         sticky("function", function),
          sticky("data", data),           sticky("batch", batch),
          sticky("optimizer", optimizer), sticky("lr", lr),
          sticky("optimizer-options", optimizerOptions),
          sticky("schedule", schedule),   sticky("warmup", warmup),
          sticky("min-lr", minLr),        sticky("weight-decay", weightDecay),
          sticky("max-grad-norm", maxGradNorm),
          sticky("clip-grad-value", clipGradValue),
          sticky("loss-scaling", lossScaling),
          sticky("precision", precision), sticky("pad", pad),
          sticky("recompute", recompute),
          sticky("optimizer-in-backward", optimizerInBackward),
          sticky("seed", seed),           sticky("init", init),
          sticky("accumulate", accumulate), sticky("steps", steps)};
}

/// Takes the checkpoint's options for flags not given; a given flag that
/// differs is an error (it would break the bit-exact continuation).
bool reconcileOptions(const CheckpointMeta &meta) {
  // Checkpoints from before --accumulate and --precision existed ran
  // without accumulation, in f32.
  std::map<std::string, std::string> options = meta.options;
  options.emplace("accumulate", "1");
  options.emplace("precision", "f32");
  options.emplace("pad", "auto");
  options.emplace("recompute", "none");
  options.emplace("optimizer-in-backward", "false");
  options.emplace("init", "");
  options.emplace("optimizer-options", "");
  for (Sticky &option : stickyOptions()) {
    auto it = options.find(option.name);
    if (it == options.end())
      return fail(std::string("checkpoint lacks option '") + option.name + "'");
    if (!option.given()) {
      if (!option.set(it->second))
        return fail(std::string("checkpoint option '") + option.name +
                    "' has a malformed value '" + it->second + "'");
      continue;
    }
    if (option.get() != it->second && std::string(option.name) != "steps" &&
        std::string(option.name) != "model")
      return fail(std::string("--") + option.name + " " + option.get() +
                  " differs from the checkpoint's " + it->second +
                  " (a resume continues the same run)");
  }
  return true;
}

/// Checks `--optimizer-options` and writes its canonical form to `words`
/// (KEY=VALUE words sorted, one space apart, so that a resume compares
/// options, not spellings); returns why it is malformed, "" when it is not.
/// Each word must be KEY=VALUE with an optimizer hyper-parameter as the key,
/// at most once (values and the optimizer's use of them are the pass's to
/// check).
std::string checkOptimizerOptions(std::string &words) {
  static const char *const keys[] = {
      "beta1",    "beta2",      "eps",       "momentum",
      "nesterov", "alpha",      "centered",  "lr-decay",
      "initial-accumulator-value",           "momentum-decay",
      "nadam-fixed-product",    "decay-all", "block-size",
      "beta2-decay", "eps1",    "eps2",      "clip-threshold"};
  llvm::SmallVector<llvm::StringRef> parts;
  llvm::SplitString(words, parts); // any whitespace
  std::set<std::string> seen;
  for (llvm::StringRef part : parts) {
    auto [key, value] = part.split('=');
    if (value.empty() || !part.contains('='))
      return "'" + part.str() + "' is not KEY=VALUE";
    if (llvm::find(keys, key) == std::end(keys))
      return "'" + key.str() +
             "' is not an optimizer hyper-parameter (beta1, beta2, eps, "
             "momentum, nesterov, alpha, centered, lr-decay, "
             "initial-accumulator-value, momentum-decay, "
             "nadam-fixed-product, decay-all, block-size, beta2-decay, eps1, "
             "eps2, clip-threshold; --lr, --weight-decay and the others are "
             "flags of their own)";
    if (!seen.insert(key.str()).second)
      return "'" + key.str() + "' is given twice";
  }
  llvm::sort(parts);
  words = llvm::join(parts, " ");
  return "";
}

/// The train-step pipeline's options string for the flags.
std::string trainStepOptions() {
  std::string options =
      "function=" + function.getValue() + " optimizer=" + optimizer.getValue();
  if (weightDecay >= 0)
    options += " weight-decay=" + text(weightDecay.getValue());
  if (!optimizerOptions.empty())
    options += " " + optimizerOptions.getValue();
  options += " max-grad-norm=" + text(maxGradNorm.getValue());
  if (clipGradValue > 0)
    options += " clip-grad-value=" + text(clipGradValue.getValue());
  options += std::string(" loss-scaling=") +
             (lossScaling ? "true" : "false");
  options += " precision=" + precision.getValue();
  options += " pad=" + pad.getValue();
  if (recompute != "none")
    options += " recompute=" + recompute.getValue();
  if (optimizerInBackward)
    options += " optimizer-in-backward=true";
  options += " schedule=" + schedule.getValue();
  if (accumulate > 1)
    options += " accumulate-steps=" + text(accumulate.getValue());
  return options;
}

struct Runtime {
  tfc_device *dev = nullptr;
  tfc_program *program = nullptr;
  ~Runtime() {
    tfc_program_destroy(program);
    tfc_device_destroy(dev);
  }
};

/// Sets the random-stream inputs `info` found for micro-batch `index` of
/// the run (counted from its first step, so a resume draws what the
/// straight run would): the seed is --seed, the offset index * stride
/// (mod 2^64, as the counter is).
bool setRandomStream(tfc_program *program, const ModelInfo &info,
                     int64_t index) {
  for (const std::string &name : info.randomStream) {
    uint64_t offset = uint64_t(index) * uint64_t(kDropoutOffsetStride);
    int64_t value = name == kDropoutSeedInput ? int64_t(seed.getValue())
                                              : int64_t(offset);
    if (tfc_status s = tfc_program_set(program, name.c_str(), &value, 8))
      return fail("cannot set '" + name + "'", s);
  }
  return true;
}

bool setTokens(tfc_program *program, const char *name,
               const std::vector<int64_t> &values) {
  tfc_binding b;
  if (tfc_status s = tfc_program_find_binding(program, name, &b))
    return fail(std::string("the train step has no input '") + name + "'", s);
  tfc_status s;
  if (b.dtype == TFC_DTYPE_I32) {
    std::vector<int32_t> narrow(values.begin(), values.end());
    s = tfc_program_set(program, name, narrow.data(), narrow.size() * 4);
  } else {
    s = tfc_program_set(program, name, values.data(), values.size() * 8);
  }
  return s ? fail(std::string("cannot set '") + name + "'", s) : true;
}

bool run() {
  // In canonical form before a resume compares it with the checkpoint's.
  std::string canonical = optimizerOptions;
  if (std::string problem = checkOptimizerOptions(canonical); !problem.empty())
    return fail("--optimizer-options: " + problem);
  optimizerOptions.setValue(canonical);
  // Resume: take the recorded options first, so checks below see them.
  CheckpointMeta meta;
  std::string checkpointDir;
  if (!resume.empty()) {
    std::string error;
    if (!readCheckpoint(resume, meta, checkpointDir, error))
      return fail(error);
    if (!reconcileOptions(meta))
      return false;
    if (outDir.empty())
      outDir.setValue(resume.getValue());
  }
  if (!tfc::parsePrecision(precision))
    return fail("unknown --precision '" + precision + "' (expected " +
                tfc::precisionNames().str() + ")");
  if (recompute != "none" && recompute != "cheap" && recompute != "blocks")
    return fail("unknown --recompute '" + recompute +
                "' (expected none, cheap or blocks)");
  if (!tfc::isValidPadOption(pad))
    return fail("unknown --pad '" + pad + "' (expected " +
                tfc::padOptionValues() + ")");
  // fp16 trains with loss scaling unless told otherwise (what
  // --tfc-train-pipeline does); the checkpoint records the choice.
  if (resume.empty() && precision == "fp16" &&
      lossScaling.getNumOccurrences() == 0)
    lossScaling.setValue(true);
  if (model.empty())
    return fail("no model: tfc-train MODEL.mlir --data FILE --out DIR");
  if (outDir.empty())
    return fail("no output directory: pass --out DIR");
  {
    // The checkpoint records the model by absolute path, so a resume from
    // another directory finds it.
    llvm::SmallString<256> absolute(model.getValue());
    llvm::sys::fs::make_absolute(absolute);
    model.setValue(absolute.str().str());
    if (!data.empty() && data.getValue().rfind("synthetic:", 0) != 0) {
      llvm::SmallString<256> absoluteData(data.getValue());
      llvm::sys::fs::make_absolute(absoluteData);
      data.setValue(absoluteData.str().str());
    }
  }
  if (steps < 1)
    return fail("--steps must be at least 1");
  if (optimizer != "adamw" && optimizer != "adam" && optimizer != "sgd" &&
      optimizer != "adafactor" && optimizer != "adamw8bit" &&
      optimizer != "rmsprop" && optimizer != "adagrad" &&
      optimizer != "adamax" && optimizer != "nadam" && optimizer != "radam")
    return fail("unknown --optimizer '" + optimizer +
                "' (adamw, adam, sgd, adafactor, adamw8bit, rmsprop, "
                "adagrad, adamax, nadam, radam)");
  Schedule sched;
  if (!parseScheduleKind(schedule, sched.kind))
    return fail("unknown --schedule '" + schedule +
                "' (constant, warmup-cosine, warmup-linear)");
  if (!std::isfinite(lr) || !(lr > 0) || !std::isfinite(minLr) ||
      !(minLr >= 0) || minLr > lr || warmup < 0)
    return fail("need a finite --lr > 0, 0 <= --min-lr <= --lr and "
                "--warmup >= 0");
  // -1, --weight-decay's value when not given, stands for the optimizer's
  // default; any value given must be a decay.
  if ((weightDecay.getNumOccurrences() > 0 || weightDecay != -1.0) &&
      !(std::isfinite(weightDecay) && weightDecay >= 0))
    return fail("--weight-decay must be a finite number >= 0, not " +
                text(weightDecay.getValue()) +
                " (leave it out for the optimizer's default)");
  if (!(std::isfinite(maxGradNorm) && maxGradNorm >= 0))
    return fail("--max-grad-norm must be a finite number >= 0 (0: off), "
                "not " + text(maxGradNorm.getValue()));
  if (!(std::isfinite(clipGradValue) && clipGradValue >= 0))
    return fail("--clip-grad-value must be a finite number >= 0 (0: off), "
                "not " + text(clipGradValue.getValue()));
  sched.lr = lr;
  sched.minLr = minLr;
  sched.warmup = warmup;
  sched.totalSteps = steps;
  if (accumulate < 1)
    return fail("--accumulate must be at least 1 (1: no accumulation)");
  if (logEvery < 1 || checkpointEvery < 0 || stopAt < 0)
    return fail("need --log-every >= 1, --checkpoint-every >= 0, --stop-at >= 0");
  if (meta.step >= steps)
    return fail("the checkpoint is at step " + std::to_string(meta.step) +
                ", not before --steps " + std::to_string(steps));

  ModelInfo info;
  std::string error;
  if (!inspectModel(model, function, info, error)) {
    std::fprintf(stderr, "%s%s", error.c_str(),
                 error.empty() || error.back() == '\n' ? "" : "\n");
    return fail("cannot train '" + model + "'");
  }
  bool examples = isExamplesSpec(data);
  if (examples) {
    // Every input is [B, ...]; DataSet::open checks them against the file.
    info.batch = info.inputs.empty() || info.inputs[0].shape.empty()
                     ? 0
                     : info.inputs[0].shape[0];
    info.seqLen = 1; // throughput counts examples
  } else if (!checkLanguageModel(model, info, error)) {
    return fail(error);
  }
  if (batch == 0)
    batch = info.batch;
  if (batch != info.batch)
    return fail("--batch " + std::to_string(batch) +
                " does not match the model's batch " +
                std::to_string(info.batch) + " (shapes are static)");
  DataSet dataSet;
  if (!dataSet.open(data, info, error))
    return fail(error);
  if (!examples) {
    // Token values the model cannot take fail up front, not at step 1
    // inside a kernel.
    int64_t largest = dataSet.largestToken();
    struct Limit {
      int64_t size;
      const char *what, *unit;
    };
    for (Limit limit : {Limit{info.tokenVocab, "its token embedding", "rows"},
                        Limit{info.targetClasses, "its cross-entropy",
                              "classes"}})
      if (int64_t size = limit.size; size > 0 && largest >= size)
        return fail("model '" + model + "' cannot train on " +
                    dataSet.describe() + ": " + limit.what + " has " +
                    std::to_string(size) + " " + limit.unit + " (tokens 0 to " +
                    std::to_string(size - 1) + "), but the data holds " +
                    "token " + std::to_string(largest) +
                    " (byte tokens need a vocabulary of " +
                    std::to_string(largest + 1) +
                    " or more; 256 takes any file)");
  }
  // An unreadable --init file fails before the compile; the names in it are
  // checked against the program's once it is loaded.
  std::vector<std::string> initNames;
  if (!init.empty() && resume.empty() &&
      !safetensorsNames(init, initNames, error))
    return fail("--init " + error);
  // A fresh run into a directory that holds one (a forgotten --resume)
  // would replace its checkpoint and metrics.
  bool sameAsResume = false;
  if (!resume.empty())
    llvm::sys::fs::equivalent(outDir, resume, sameAsResume);
  if (!sameAsResume && holdsRun(outDir)) {
    if (!overwrite)
      return fail("--out '" + outDir + "' already holds a run (a checkpoint "
                  "or metrics.jsonl): continue it with --resume " + outDir +
                  ", pick another --out, or pass --overwrite to replace it");
    for (const char *name : {"checkpoint", "checkpoint.old", "checkpoint.tmp"})
      llvm::sys::fs::remove_directories(outDir + "/" + name);
    llvm::sys::fs::remove(outDir + "/metrics.jsonl");
  }
  if (std::error_code ec = llvm::sys::fs::create_directories(outDir))
    return fail("cannot create '" + outDir + "': " + ec.message());

  // The device first: --target auto follows the backend actually opened, so
  // --device auto without a GPU compiles for the host as --device host does
  // (the target decides the padding, hence the names of padded weight copies
  // in checkpoints: a run with --device host resumed with the default
  // --device auto used to compile for sm_90 and refuse the checkpoint).
  Runtime rt;
  if (tfc_status s = tfc::openDevice("tfc-train", device, &rt.dev))
    return fail("cannot open device '" + device + "'", s);

  // Compile the train step (cached on disk).
  tfc::JitOptions jitOptions;
  jitOptions.function = function;
  jitOptions.trainStepOptions = trainStepOptions();
  jitOptions.target = target == "auto"
                          ? tfc::targetForDevice(tfc_device_kind(rt.dev))
                          : target.getValue();
  if (!mlir::tfc::parseKernelTarget(jitOptions.target))
    return fail("unknown --target '" + target + "' (expected auto, " +
                mlir::tfc::kernelTargetNames() + ")");
  tfc::JitResult compiled;
  auto compileStart = std::chrono::steady_clock::now();
  if (!tfc::compileModel(model, jitOptions, compiled, error)) {
    std::fprintf(stderr, "%s", error.c_str());
    return fail("compilation of '" + model + "' failed");
  }
  std::printf("compiled %s train step for %s (%s, %.1f s): %s\n",
              model.c_str(), jitOptions.target.c_str(),
              compiled.cacheHit ? "cached" : "fresh",
              std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                            compileStart)
                  .count(),
              trainStepOptions().c_str());

  std::printf("device: %s\n", tfc_device_description(rt.dev));
  if (tfc_status s = tfc_program_load(rt.dev, compiled.artifactDir.c_str(),
                                      &rt.program))
    return fail("cannot load the train step", s);
  // One optimizer step: train_step, or accumulate_step per micro-batch and
  // then apply_step.
  std::vector<const char *> stepEntries = {"train_step"};
  if (accumulate > 1)
    stepEntries = {"accumulate_step", "apply_step"};
  for (const char *name : stepEntries) {
    bool hasEntry = false;
    for (size_t i = 0, e = tfc_program_entry_count(rt.program); i < e; ++i)
      hasEntry |= std::strcmp(tfc_program_entry_name(rt.program, i), name) == 0;
    if (!hasEntry)
      return fail(std::string("the compiled artifact has no '") + name +
                  "' entry");
  }

  // Parameters: GPT-2 init, the --init file or the checkpoint; data stream:
  // seeded or saved.
  Rng initRng(seed);
  int64_t parameters = 0;
  InitSummary initSummary;
  // (A resume restores every parameter and state from the checkpoint.)
  bool fresh = checkpointDir.empty() && init.empty();
  bool initialized =
      !checkpointDir.empty()
          ? countParameters(rt.program, parameters, error)
      : init.empty() ? initParameters(rt.program, initRng, info.normScales,
                                      parameters, initSummary, error) &&
                           zeroStates(rt.program, error)
                     : zeroStates(rt.program, error) &&
                           loadInitialValues(rt.program, init, initNames,
                                             parameters, error);
  if (!initialized)
    return fail(error);
  if (fresh)
    std::printf("%s", describeInit(initSummary, seed).c_str());
  Rng dataRng(seed ^ 0x5deece66dull);
  std::vector<StepRecord> earlier;
  if (!checkpointDir.empty()) {
    if (!restoreCheckpoint(rt.program, checkpointDir, meta, error))
      return fail(error);
    if (!dataRng.deserialize(meta.dataRng))
      return fail("checkpoint has a malformed data_rng");
    dataSet.setPosition(meta.dataPosition);
    if (!readMetrics(resume + "/metrics.jsonl", earlier, error))
      return fail(error);
    // Steps after the checkpoint were redone by this run.
    while (!earlier.empty() && earlier.back().step > meta.step)
      earlier.pop_back();
    std::printf("resumed from %s at step %lld\n", checkpointDir.c_str(),
                (long long)meta.step);
  }

  MetricsWriter metrics;
  std::string metricsPath = outDir + "/metrics.jsonl";
  if (!metrics.open(metricsPath, earlier, error))
    return fail(error);
  std::vector<StepRecord> records = earlier;

  std::string perStep = std::to_string(accumulate.getValue()) + " x " +
                        std::to_string(info.batch) +
                        (examples ? " examples"
                                  : " x " + std::to_string(info.seqLen) +
                                        " tokens");
  std::printf("training %lld parameters on %s: %lld steps of %s, %s, lr %g "
              "(%s)\n",
              (long long)parameters, dataSet.describe().c_str(),
              (long long)steps.getValue(), perStep.c_str(),
              optimizer.getValue().c_str(), lr.getValue(),
              schedule.getValue().c_str());
  std::fflush(stdout);

  auto saveCheckpoint = [&](int64_t step, double elapsed) {
    CheckpointMeta now;
    now.step = step;
    now.dataRng = dataRng.serialize();
    now.dataPosition = dataSet.position();
    now.elapsed = elapsed;
    for (Sticky &option : stickyOptions())
      now.options[option.name] = option.get();
    std::string why;
    bool ok = writeCheckpoint(
        outDir, now,
        [&](const std::string &path, std::string &err) {
          if (tfc_status s = tfc_program_save_safetensors(
                  rt.program, path.c_str(), TFC_ROLE_PARAM | TFC_ROLE_STATE)) {
            err = std::string("cannot write '") + path +
                  "': " + tfc_status_message(s);
            tfc_status_free(s);
            return false;
          }
          return true;
        },
        why);
    return ok ? true : fail(why);
  };

  bool hasScale = false;
  {
    tfc_binding b;
    if (tfc_status s =
            tfc_program_find_binding(rt.program, "loss_scale", &b))
      tfc_status_free(s);
    else
      hasScale = b.dtype == TFC_DTYPE_F32 && b.bytes == 4;
  }
  int64_t last = stopAt > 0 ? std::min<int64_t>(stopAt, steps) : steps;
  Progress progress(steps, logEvery,
                    llvm::sys::Process::StandardErrIsDisplayed());
  double elapsed = meta.elapsed, thisRun = 0;
  Batch b;
  // The device computes each step's rate from the step counter; the inputs
  // are set once.
  std::string scheduleError;
  if (!setScheduleInputs(rt.program, sched, scheduleError))
    return fail(scheduleError);
  bool warnedNonFinite = false;
  int64_t stoppedAt = last;
  catchInterrupts();
  for (int64_t step = meta.step; step < last; ++step) {
    // The step's loss is the mean of its micro-batches' losses, as the
    // loss of the whole K x B batch would be.
    double dt = 0, lossSum = 0;
    for (int64_t micro = 0; micro < accumulate; ++micro) {
      dataSet.nextBatch(dataRng, info.batch, b);
      if (examples) {
        for (const auto &[name, bytes] : b.inputs)
          if (tfc_status s = tfc_program_set(rt.program, name.c_str(),
                                             bytes.data(), bytes.size()))
            return fail("cannot set '" + name + "'", s);
      } else if (!setTokens(rt.program, "tokens", b.tokens) ||
                 !setTokens(rt.program, "targets", b.targets)) {
        return false;
      }
      if (!setRandomStream(rt.program, info, step * accumulate + micro))
        return false;
      auto start = std::chrono::steady_clock::now();
      if (tfc_status s = tfc_program_run(rt.program, stepEntries.front()))
        return fail("step " + std::to_string(step + 1) + " failed", s);
      float microLoss = 0;
      if (tfc_status s = tfc_program_get(rt.program, "loss", &microLoss, 4))
        return fail("cannot read 'loss'", s);
      lossSum += microLoss;
      if (accumulate > 1 && micro + 1 == accumulate)
        if (tfc_status s = tfc_program_run(rt.program, stepEntries.back()))
          return fail("step " + std::to_string(step + 1) + " failed", s);
      dt += std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                          start)
                .count();
    }
    float loss = float(lossSum / double(accumulate)), rate = float(sched.lr);
    if (!std::isfinite(loss) && !warnedNonFinite) {
      // Once per run: torch says nothing, but a diverged run that goes on
      // silently wastes the rest of it.
      warnedNonFinite = true;
      progress.finish();
      std::fprintf(stderr,
                   "tfc-train: warning: the loss is %s at step %lld "
                   "(metrics.jsonl records it as \"%s\"); training goes "
                   "on%s\n",
                   std::isnan(loss) ? "NaN" : "infinite",
                   (long long)(step + 1),
                   std::isnan(loss) ? "nan" : loss > 0 ? "inf" : "-inf",
                   hasScale ? " (loss scaling skips such steps)" : "");
    }
    if (sched.kind != ScheduleKind::Constant) {
      // f32, or f64 for a model with f64 parameters (Schedule.cpp).
      tfc_binding applied;
      if (tfc_status s =
              tfc_program_find_binding(rt.program, "applied_lr", &applied))
        return fail("cannot read 'applied_lr'", s);
      double wide = 0;
      if (tfc_status s = tfc_program_get(rt.program, "applied_lr",
                                         applied.dtype == TFC_DTYPE_F64
                                             ? static_cast<void *>(&wide)
                                             : static_cast<void *>(&rate),
                                         applied.bytes))
        return fail("cannot read 'applied_lr'", s);
      if (applied.dtype == TFC_DTYPE_F64)
        rate = float(wide);
    }
    elapsed += dt;
    thisRun += dt;
    StepRecord record{
        step + 1,
        loss,
        rate,
        dt > 0 ? double(accumulate * info.batch * info.seqLen) / dt : 0,
        elapsed,
        std::nullopt};
    if (hasScale) {
      float scale = 0;
      if (tfc_status s = tfc_program_get(rt.program, "loss_scale", &scale, 4))
        return fail("cannot read 'loss_scale'", s);
      record.lossScale = scale;
    }
    if (!metrics.append(record))
      return fail("cannot write '" + metricsPath + "'");
    records.push_back(record);
    double perStep = thisRun / double(step + 1 - meta.step);
    progress.update(record, perStep * double(steps - step - 1));
    if (interruptSignal && step + 1 != last) {
      stoppedAt = step + 1;
      break;
    }
    if (checkpointEvery > 0 && (step + 1) % checkpointEvery == 0 &&
        step + 1 != last && !saveCheckpoint(step + 1, elapsed))
      return false;
  }
  progress.finish();
  if (!saveCheckpoint(stoppedAt, elapsed))
    return false;

  std::string title = "tfc-train: " + llvm::sys::path::filename(model).str() +
                      ", " + optimizer.getValue() + ", lr " +
                      llvm::formatv("{0}", lr.getValue()).str();
  MemoryAnatomy anatomy =
      anatomyOf(rt.program, compiled.artifactDir, rt.dev, parameters,
                optimizer, lossScaling, precision, pad,
                recompute, optimizerInBackward);
  if (!writeFileAtomically(outDir + "/loss.svg", renderLossSvg(records, title),
                           error) ||
      !writeFileAtomically(outDir + "/memory.md", renderMemoryReport(anatomy),
                           error) ||
      !writeFileAtomically(outDir + "/memory.json", renderMemoryJson(anatomy),
                           error))
    return fail(error);
  if (!records.empty())
    std::printf("step %lld: loss %.4f (first %.4f); %.1f s training\n",
                (long long)records.back().step,
                std::isnan(records.back().loss) ? std::fabs(records.back().loss)
                                                : records.back().loss,
                records.front().loss, elapsed);
  std::printf("metrics: %s\nplot: %s/loss.svg\nmemory report: %s/memory.md\n"
              "checkpoint: %s/checkpoint\n",
              metricsPath.c_str(), outDir.c_str(), outDir.c_str(),
              outDir.c_str());
  if (stoppedAt != last) {
    std::fflush(stdout);
    std::fprintf(stderr,
                 "tfc-train: %s at step %lld of %lld; checkpoint written. "
                 "Continue with: tfc-train --resume %s\n",
                 interruptSignal == SIGINT ? "interrupted (SIGINT)"
                                           : "terminated (SIGTERM)",
                 (long long)stoppedAt, (long long)steps.getValue(),
                 outDir.c_str());
    interruptedExitCode = 128 + interruptSignal;
  }
  return true;
}

} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  cl::HideUnrelatedOptions(category);
  cl::ParseCommandLineOptions(
      argc, argv,
      "tfc-train: train a tfc model\n\n"
      "  tfc-train model.mlir --data text.txt --steps 200 --out run/\n"
      "  tfc-train --resume run/ --steps 400\n");
  // Nothing may escape as an exception (an abort with no message): a
  // failure the checks above missed is still one line and exit code 1.
  try {
    return run() ? interruptedExitCode : 1;
  } catch (const std::exception &e) {
    std::fprintf(stderr, "tfc-train: %s\n", e.what());
  } catch (...) {
    std::fprintf(stderr, "tfc-train: unexpected failure\n");
  }
  return 1;
}
