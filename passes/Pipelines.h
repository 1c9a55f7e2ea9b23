//===- Pipelines.h - named tfc pass pipelines -------------------*- C++ -*-===//
//
// The pipelines tfc's tools run by name (tfc-opt --<name>), built in C++ so
// that the JIT session can run the same ones in process.
//
//===----------------------------------------------------------------------===//

#ifndef TFC_PASSES_PIPELINES_H
#define TFC_PASSES_PIPELINES_H

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassOptions.h"

#include <string>

namespace tfc {

/// How --tfc-lower-to-exec groups ops into kernels.
enum class FusionMode {
  /// --tfc-fuse after --tfc-form-kernels (the default).
  All,
  /// One op per kernel: differential tests and bisecting.
  None,
};

/// Options of --tfc-lower-to-exec.
struct LowerToExecOptions
    : public mlir::PassPipelineOptions<LowerToExecOptions> {
  Option<std::string> function{
      *this, "function",
      llvm::cl::desc("The function to lower into tfcrt.entry @forward, or a "
                     "comma-separated list of functions lowered into entries "
                     "of one program"),
      llvm::cl::init("loss")};
  Option<bool> autodiff{
      *this, "autodiff",
      llvm::cl::desc("Run --tfc-autodiff on `function` first and lower its "
                     "gradient function <function>_grad (outputs: the loss, "
                     "then one gradient per tfc.param argument)"),
      llvm::cl::init(false)};
  Option<FusionMode> fusion{
      *this, "fusion",
      llvm::cl::desc("Kernel grouping: `all` runs --tfc-fuse after "
                     "--tfc-form-kernels, `none` keeps one op per kernel"),
      llvm::cl::init(FusionMode::All),
      llvm::cl::values(
          clEnumValN(FusionMode::All, "all", "fuse ops into kernels"),
          clEnumValN(FusionMode::None, "none", "one op per kernel"))};
  Option<std::string> precision{
      *this, "precision",
      llvm::cl::desc("f32 (default), tf32, bf16 or fp16: "
                     "--tfc-auto-mixed-precision on the functions first"),
      llvm::cl::init("f32")};
  Option<std::string> pad{
      *this, "pad",
      llvm::cl::desc("auto (default: what the target's tensor cores want), "
                     "none or N: --tfc-pad-shapes after the precision"),
      llvm::cl::init("auto")};
  Option<std::string> recompute{
      *this, "recompute",
      llvm::cl::desc("none (default), cheap or blocks: --tfc-recompute on "
                     "the step functions after CSE, before kernels form"),
      llvm::cl::init("none")};
  Option<std::string> target{
      *this, "target",
      llvm::cl::desc("The machine kernels are scheduled for: sm_80, sm_90 "
                     "or host (--tfc-schedule-kernels)"),
      llvm::cl::init("sm_90")};
  Option<int64_t> rowUnroll{
      *this, "row-unroll",
      llvm::cl::desc("The unroll of block-per-row row kernels, 1 to 16 (0: "
                     "the target's choice; --tfc-schedule-kernels)"),
      llvm::cl::init(0)};
};

/// Adds --tfc-lower-to-exec to `pm` (a pass manager on builtin.module):
/// [tfc-inline-checkpoints,] [tfc-auto-mixed-precision,] tfc-pad-shapes,
/// [tfc-autodiff,] tfc-decompose, canonicalize, cse, [tfc-recompute,],
/// canonicalize, tfc-form-kernels, [tfc-fuse,] tfc-convert-to-exec,
/// tfc-dedupe-kernels, tfc-schedule-kernels. `inlineCheckpoints` false:
/// the caller dissolved the tfc.checkpoint regions already.
void buildLowerToExecPipeline(mlir::OpPassManager &pm,
                              const LowerToExecOptions &options,
                              bool inlineCheckpoints = true);

/// Adds --tfc-train-pipeline to `pm`: --tfc-inline-checkpoints, then
/// --tfc-build-train-step configured by
/// `stepOptions` in that pass's own syntax (e.g. "optimizer=sgd
/// momentum=0.9"; its options are the single list, passes/training/Passes.td),
/// then --tfc-lower-to-exec on @train_step (entry `train_step`). The
/// lowering's options `fusion=all|none`, `target=sm_80|sm_90|host` and
/// `row-unroll=N` may be given among them, and `precision=f32|tf32|bf16|fp16`, which runs
/// --tfc-auto-mixed-precision on the loss first (fp16 turns loss scaling on
/// unless `loss-scaling=` is given), `pad=auto|none|N` (--tfc-pad-shapes
/// on the loss, after the precision), `recompute=none|cheap|blocks` and
/// `optimizer-in-backward=true|false` (--tfc-optimizer-in-backward after
/// the step is built). Bad options go to `errorHandler` and fail.
mlir::LogicalResult
buildTrainPipeline(mlir::OpPassManager &pm, llvm::StringRef stepOptions,
                   llvm::function_ref<mlir::LogicalResult(const llvm::Twine &)>
                       errorHandler);

/// Registers every named tfc pipeline with the global pipeline registry.
/// Reads the accumulate-steps option (micro-batches per optimizer step; 1:
/// the one entry train_step, else accumulate_step + apply_step) from a
/// --tfc-train-pipeline option string, parsed as the pipeline parses it;
/// also checks every option's value (checkBuildTrainStepOptions), so a bad
/// one fails before any model is read.
mlir::LogicalResult trainAccumulateSteps(
    llvm::StringRef stepOptions, int64_t &accumulateSteps,
    llvm::function_ref<mlir::LogicalResult(const llvm::Twine &)> errorHandler);

void registerPipelines();

} // namespace tfc

#endif // TFC_PASSES_PIPELINES_H
