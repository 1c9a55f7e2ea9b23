//===- tfc-run.cpp - compile (or load) and run a tfc program --------------===//
//
// tfc-run MODEL.mlir|ARTIFACT_DIR [options]
//
// Compiles a model function in process (JIT, cached) or takes an artifact,
// then runs it exactly as tfcrt-run does (runtime/tools/tfcrt-run/Runner.h:
// the run flags, binding, entries, traces, timings and profiles are shared).
// A training step with gradient accumulation runs accumulate_step K times and
// apply_step per step. Errors are one line on stderr and exit code 1.
//
//===----------------------------------------------------------------------===//

#include "compiler/artifact/ArtifactWriter.h"
#include "compiler/jit/JitCompiler.h"
#include "dialects/tfc/TfcKernelSchedule.h"
#include "passes/layout/Passes.h"
#include "passes/precision/PrecisionPolicy.h"
#include "runtime/tools/common/OpenDevice.h"
#include "runtime/tools/tfcrt-run/Runner.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"

#include <chrono>
#include <memory>
#include <cstdio>
#include <string>

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  tfc::tools::RunOptions run;
  run.tool = "tfc-run";
  std::string input, function = "loss", trainStep, keepArtifact,
      fusion = "all", target = "auto", precision = "f32",
      pad = "auto";
  bool grad = false;
  tfc::tools::FlagParser parser(
      "tfc-run",
      "tfc-run: compile (or load) a tfc program and run it\n\n"
      "  tfc-run model.mlir --inputs in.safetensors --outputs out.safetensors\n"
      "  tfc-run model.mlir --seed 0 --device host\n"
      "  tfc-run model.mlir --train-step \"optimizer=adamw\" --inputs "
      "init.safetensors --steps 10\n"
      "  tfc-run artifact-dir --inputs in.safetensors\n");
  parser.setPositional(&input, "MODEL.mlir|ARTIFACT_DIR");
  parser.addString("function", &function,
                   "Function of the model to compile (default: loss)");
  parser.addBool("grad", &grad,
                 "Compile the gradient of --function (--tfc-autodiff): "
                 "outputs loss and grad.<name> for each tfc.param argument");
  parser.addString(
      "train-step", &trainStep,
      "Compile a training step (--tfc-train-pipeline) with these options, "
      "e.g. \"optimizer=adamw max-grad-norm=1\"; the default entry becomes "
      "train_step, or with accumulate-steps=K one optimizer step: "
      "accumulate_step K times, then apply_step");
  parser.addString("fusion", &fusion,
                   "Kernel fusion when compiling: all (the default) or none "
                   "(one op per kernel; bisecting, differential tests)");
  parser.addString("target", &target,
                   "Machine the kernels are scheduled for when compiling: "
                   "sm_80, sm_90, host (no CUDA sources) or auto (the "
                   "default: host when the host backend runs, --device host "
                   "or --device auto without a usable GPU; else sm_90)");
  parser.addString("precision", &precision,
                   "Precision when compiling: f32 (the default), tf32, bf16 "
                   "or fp16 (mixed precision with f32 master weights, "
                   "--tfc-auto-mixed-precision; with --train-step as its "
                   "precision= option, fp16 turning loss scaling on)");
  parser.addString("pad", &pad,
                   "Shape padding when compiling: auto (the default: the "
                   "multiples the target's tensor cores want), none, or N "
                   "(every GEMM dimension to a multiple of N); exact "
                   "(--tfc-pad-shapes)");
  parser.addString("emit-artifact", &keepArtifact,
                   "Also write the compiled artifact to this directory "
                   "(runnable by tfcrt-run); an artifact there is replaced, "
                   "anything else is refused");
  tfc::tools::addRunFlags(parser, run);
  int exitCode = 0;
  if (!parser.parse(argc, argv, exitCode))
    return exitCode;
  tfc::tools::finishRunFlags(parser, run);
  if (!run.probeDevice.empty())
    return tfc::tools::probeDevice(run) ? 0 : 1;
  if (input.empty()) {
    std::fprintf(stderr,
                 "tfc-run: no input: pass a model (.mlir) or an artifact "
                 "directory\n");
    return 1;
  }

  if (!keepArtifact.empty()) {
    std::string problem = tfc::checkArtifactDestination(keepArtifact);
    if (!problem.empty()) {
      std::fprintf(stderr, "tfc-run: --emit-artifact: %s\n", problem.c_str());
      return 1;
    }
  }
  if (fusion != "all" && fusion != "none") {
    std::fprintf(stderr,
                 "tfc-run: unknown --fusion '%s' (expected all or none)\n",
                 fusion.c_str());
    return 1;
  }
  if (!tfc::parsePrecision(precision)) {
    std::fprintf(stderr,
                 "tfc-run: unknown --precision '%s' (expected %s)\n",
                 precision.c_str(), tfc::precisionNames().str().c_str());
    return 1;
  }
  if (!tfc::isValidPadOption(pad)) {
    std::fprintf(stderr, "tfc-run: unknown --pad '%s' (expected %s)\n",
                 pad.c_str(), tfc::padOptionValues().c_str());
    return 1;
  }
  // The device first, as tfc-train: --target auto follows the backend
  // actually opened, so --device auto without a usable GPU compiles for the
  // host (it compiled for sm_90, whose padding and kernels the host then
  // ran: right numbers, but not the program --device host gives).
  std::unique_ptr<tfc_device, void (*)(tfc_device *)> device(
      nullptr, tfc_device_destroy);
  if (target == "auto" && run.device == "auto") {
    tfc_device *opened = nullptr;
    if (tfc_status s = tfc::openDevice(run.tool.c_str(), "auto", &opened)) {
      std::fprintf(stderr, "tfc-run: cannot open device 'auto': %s\n",
                   tfc_status_message(s));
      tfc_status_free(s);
      return 1;
    }
    device.reset(opened);
    target = tfc::targetForDevice(tfc_device_kind(opened));
  } else if (target == "auto") {
    target = tfc::targetForDevice(run.device);
  }
  if (!mlir::tfc::parseKernelTarget(target)) {
    std::fprintf(stderr, "tfc-run: unknown --target '%s' (expected auto, %s)\n",
                 target.c_str(), mlir::tfc::kernelTargetNames().c_str());
    return 1;
  }

  std::string artifactDir = input;
  tfc::JitOptions options;
  tfc::JitResult result;
  if (!llvm::sys::fs::is_directory(input)) {
    options.function = function;
    options.grad = grad;
    options.fusion = fusion == "all";
    options.target = target;
    options.precision = precision;
    options.pad = pad;
    options.trainStepOptions = trainStep;
    // A bare --train-step= still asks for a training step of --function.
    if (parser.seen("train-step") && trainStep.empty())
      options.trainStepOptions = "function=" + function;
    std::string error;
    auto start = std::chrono::steady_clock::now();
    if (!tfc::compileModel(input, options, result, error)) {
      std::fprintf(stderr, "%s", error.c_str());
      std::fprintf(stderr, "tfc-run: compilation of '%s' failed\n",
                   input.c_str());
      return 1;
    }
    if (!keepArtifact.empty() &&
        !tfc::compileModelTo(input, options, keepArtifact, error)) {
      std::fprintf(stderr, "%s", error.c_str());
      std::fprintf(stderr, "tfc-run: cannot write the artifact to '%s'\n",
                   keepArtifact.c_str());
      return 1;
    }
    artifactDir = result.artifactDir;
    if (result.accumulateSteps > 1 && !parser.seen("accumulate"))
      run.accumulate = unsigned(result.accumulateSteps);
    double ms = std::chrono::duration<double, std::milli>(
                    std::chrono::steady_clock::now() - start)
                    .count();
    if (!run.quiet)
      std::printf("compiled %s (%s, %.0f ms)\n", input.c_str(),
                  result.cacheHit ? "cached" : "fresh", ms);
  }
  bool loadFailed = false;
  if (tfc::tools::runArtifact(artifactDir, run, device.release(), &loadFailed))
    return 0;
  if (!loadFailed || result.artifactDir.empty())
    return 1;
  if (!result.cacheHit) {
    // A fresh artifact the runtime refuses (a tfc bug): not kept, so a
    // later run reports the compiler's error again instead of "(cached)".
    tfc::evictCachedArtifact(artifactDir);
    return 1;
  }
  // A cache entry with intact digests that the runtime still refuses (an
  // entry from a tfc whose writer had a bug, or one edited with its digests
  // recomputed): it would fail every later run, so it is rebuilt once.
  std::fprintf(stderr,
               "tfc-run: the cached artifact '%s' does not load; removed it, "
               "compiling again\n",
               artifactDir.c_str());
  tfc::evictCachedArtifact(artifactDir);
  std::string error;
  if (!tfc::compileModel(input, options, result, error)) {
    std::fprintf(stderr, "%s", error.c_str());
    std::fprintf(stderr, "tfc-run: compilation of '%s' failed\n",
                 input.c_str());
    return 1;
  }
  if (!run.quiet)
    std::printf("compiled %s (%s)\n", input.c_str(),
                result.cacheHit ? "cached" : "fresh");
  if (tfc::tools::runArtifact(result.artifactDir, run, nullptr, &loadFailed))
    return 0;
  if (loadFailed)
    tfc::evictCachedArtifact(result.artifactDir);
  return 1;
}
