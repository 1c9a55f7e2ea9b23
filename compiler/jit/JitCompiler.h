//===- JitCompiler.h - in-process .mlir -> artifact compilation -*- C++ -*-===//
//
// The JIT path that tfc-run, tfc-train and applications use: parse a tfc
// model, lower it with --tfc-lower-to-exec, generate code and write the
// artifact, reusing an earlier artifact from the on-disk cache when the
// model and options are unchanged.
//
//===----------------------------------------------------------------------===//

#ifndef TFC_COMPILER_JIT_JITCOMPILER_H
#define TFC_COMPILER_JIT_JITCOMPILER_H

#include <string>

namespace tfc {

struct JitOptions {
  /// The function of the model to compile (`@loss` by default).
  std::string function = "loss";
  /// Compile the gradient function instead: run --tfc-autodiff on
  /// `function` and lower `<function>_grad`, whose outputs are out0 (the
  /// loss) and out1.. (one gradient per tfc.param argument, in order).
  bool grad = false;
  /// When non-empty, compile a training step instead: run
  /// --tfc-train-pipeline with these options (the pipeline's option string,
  /// e.g. "optimizer=adamw max-grad-norm=1 loss-scaling=true"; its
  /// `function=` names the loss, `loss` by default). The artifact's entry
  /// is `train_step`, or with accumulate-steps=K > 1 the two entries
  /// `accumulate_step` (run K times per optimizer step) and `apply_step`;
  /// see passes/training/Passes.td for their externals.
  std::string trainStepOptions;
  /// Fuse kernels (--tfc-fuse, the default); false keeps one op per kernel
  /// (the pipelines' fusion=none: bisecting, differential tests).
  bool fusion = true;
  /// The machine kernels are scheduled for (the pipelines' target=):
  /// sm_80, sm_90 or host (no CUDA sources: the artifact runs on the host
  /// backend only). See targetForDevice.
  std::string target = "sm_90";
  /// The pipelines' precision=: f32 (nothing changes), tf32, bf16 or fp16
  /// (--tfc-auto-mixed-precision before autodiff / the train step). A
  /// precision= in trainStepOptions takes precedence.
  std::string precision = "f32";
  /// The pipelines' pad=: auto (what the target's tensor cores want), none
  /// or N (--tfc-pad-shapes). A pad= in trainStepOptions takes precedence.
  std::string pad = "auto";
  /// Skip the on-disk cache (also when TFC_DISABLE_CACHE=1).
  bool disableCache = false;
};

/// The result of a compilation.
struct JitResult {
  /// The artifact directory, ready for tfc_program_load.
  std::string artifactDir;
  /// True when the artifact came from the cache.
  bool cacheHit = false;
  /// For a training step: the micro-batches per optimizer step (the
  /// accumulate-steps option; 1 means the one entry `train_step`).
  int64_t accumulateSteps = 1;
};

/// The target a tool compiles for when the user gave none (`--target
/// auto`): `host` for `--device host`, else sm_90 (whose schedules also
/// run correctly, if not tuned, on other GPUs).
std::string targetForDevice(const std::string &device);

/// Compiles the model in `modelPath`. The artifact lands in
/// $TFC_CACHE_DIR/artifacts/<sha256 of source, options and format> (default
/// cache dir ~/.cache/tfc, created mode 0700). An entry found there is
/// reused when its digests match (checkArtifactDigests); a damaged one is
/// removed and rebuilt, with a one-line notice on stderr. On failure returns
/// false and sets `error` to the diagnostics (file:line:col: error: ...).
bool compileModel(const std::string &modelPath, const JitOptions &options,
                  JitResult &result, std::string &error);

/// compileModel for a model held in memory; `bufferName` names it in
/// diagnostics (e.g. "model.mlir").
bool compileModelSource(const std::string &source, const std::string &bufferName,
                        const JitOptions &options, JitResult &result,
                        std::string &error);

/// Compiles the model in `modelPath` into `artifactDir` (no cache).
bool compileModelTo(const std::string &modelPath, const JitOptions &options,
                    const std::string &artifactDir, std::string &error);

/// Removes the cache entry `artifactDir` (a JitResult's artifactDir with
/// cacheHit) that the runtime could not load, so that the next compileModel
/// builds it again. Does nothing for a directory outside the cache.
void evictCachedArtifact(const std::string &artifactDir);

/// The cache directory: $TFC_CACHE_DIR, else $HOME/.cache/tfc.
std::string cacheDirectory();

} // namespace tfc

#endif // TFC_COMPILER_JIT_JITCOMPILER_H
