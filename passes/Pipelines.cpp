//===- Pipelines.cpp - named tfc pass pipelines ---------------------------===//

#include "passes/Pipelines.h"

#include "dialects/tfc/TfcKernelSchedule.h"
#include "passes/autodiff/Passes.h"
#include "passes/fusion/Passes.h"
#include "passes/layout/Passes.h"
#include "passes/lowering/Passes.h"
#include "passes/precision/Passes.h"
#include "passes/precision/PrecisionPolicy.h"
#include "passes/training/OptimizerRule.h"
#include "passes/training/Passes.h"
#include "passes/training/StepStages.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/ADT/StringExtras.h"

#include <vector>

/// --tfc-pad-shapes on `function` for `target`, unless pad=none.
static void addPadShapes(mlir::OpPassManager &pm, llvm::StringRef pad,
                         llvm::StringRef target, llvm::StringRef function) {
  // An unknown target is --tfc-schedule-kernels' error to report.
  if (pad == "none" || !mlir::tfc::parseKernelTarget(target))
    return;
  tfc::TfcPadShapesPassOptions options;
  options.pad = pad.str();
  options.target = target.str();
  options.function = function.str();
  pm.addPass(tfc::createTfcPadShapesPass(options));
}

void tfc::buildLowerToExecPipeline(mlir::OpPassManager &pm,
                                   const LowerToExecOptions &options,
                                   bool inlineCheckpoints) {
  std::string function = options.function;
  // User-marked recompute blocks become plain ops before anything else
  // (the train pipeline did that before building the step).
  if (inlineCheckpoints)
    pm.addPass(createTfcInlineCheckpointsPass());
  if (options.precision != "f32") {
    TfcAutoMixedPrecisionPassOptions precision;
    precision.precision = options.precision;
    precision.function = function;
    pm.addPass(createTfcAutoMixedPrecisionPass(precision));
  }
  addPadShapes(pm, options.pad, options.target, function);
  if (options.autodiff) {
    TfcAutodiffPassOptions autodiff;
    autodiff.function = function;
    pm.addPass(createTfcAutodiffPass(autodiff));
    function += "_grad";
  }
  pm.addNestedPass<mlir::func::FuncOp>(createTfcDecomposePass());
  // Folds what decomposition exposes (e.g. transpose pairs) and dedups the
  // constants it created before they are cloned into kernels; CSE shares
  // what every attention layer rebuilds (the causal mask).
  pm.addPass(mlir::createCanonicalizerPass());
  pm.addPass(mlir::createCSEPass());
  // After CSE, which would merge a recomputed op back into its original.
  // With recompute=none it only records the saved-activation bytes.
  TfcRecomputePassOptions recompute;
  recompute.mode = options.recompute;
  recompute.function = function;
  pm.addPass(createTfcRecomputePass(recompute));
  pm.addNestedPass<mlir::func::FuncOp>(createTfcFormKernelsPass());
  if (options.fusion == FusionMode::All)
    pm.addNestedPass<mlir::func::FuncOp>(createTfcFusePass());
  TfcConvertToExecPassOptions convert;
  convert.function = function;
  pm.addPass(createTfcConvertToExecPass(convert));
  // Layers repeat the same kernels: compile each distinct one once.
  pm.addPass(createTfcDedupeKernelsPass());
  TfcScheduleKernelsPassOptions schedule;
  schedule.target = options.target;
  schedule.rowUnroll = options.rowUnroll;
  pm.addPass(createTfcScheduleKernelsPass(schedule));
}

/// Splits the lowering's options (`fusion=<mode>`, `target=<machine>`,
/// `row-unroll=<n>`, `precision=<p>`) off a --tfc-train-pipeline option string; the rest is
/// --tfc-build-train-step's (all its values are scalars, so options are
/// separated by whitespace). fp16 turns loss scaling on unless the string
/// sets loss-scaling itself (GradScaler is what makes fp16 train).
static mlir::LogicalResult splitLoweringOptions(
    llvm::StringRef text, std::string &stepOptions,
    tfc::LowerToExecOptions &lower,
    llvm::function_ref<mlir::LogicalResult(const llvm::Twine &)> errorHandler,
    bool *optimizerInBackward = nullptr) {
  llvm::SmallVector<llvm::StringRef> tokens;
  llvm::SplitString(text, tokens);
  std::vector<std::string> rest;
  bool lossScalingGiven = false;
  for (llvm::StringRef token : tokens) {
    if (token.starts_with("loss-scaling"))
      lossScalingGiven = true;
    if (token.consume_front("precision=")) {
      if (!tfc::parsePrecision(token))
        return errorHandler("unknown value '" + token +
                            "' for option precision (expected " +
                            tfc::precisionNames() + ")");
      lower.precision = token.str();
      continue;
    }
    if (token.consume_front("optimizer-in-backward=")) {
      if (token != "true" && token != "false")
        return errorHandler("unknown value '" + token +
                            "' for option optimizer-in-backward (expected "
                            "true or false)");
      if (optimizerInBackward)
        *optimizerInBackward = token == "true";
      continue;
    }
    if (token.consume_front("recompute=")) {
      if (token != "none" && token != "cheap" && token != "blocks")
        return errorHandler("unknown value '" + token +
                            "' for option recompute (expected none, cheap "
                            "or blocks)");
      lower.recompute = token.str();
      continue;
    }
    if (token.consume_front("pad=")) {
      if (!tfc::isValidPadOption(token))
        return errorHandler("unknown value '" + token +
                            "' for option pad (expected " +
                            tfc::padOptionValues() + ")");
      lower.pad = token.str();
      continue;
    }
    if (token.consume_front("row-unroll=")) {
      int64_t unroll = 0;
      if (token.getAsInteger(10, unroll) || unroll < 0 ||
          unroll > mlir::tfc::kMaxScheduleUnroll)
        return errorHandler("unknown value '" + token +
                            "' for option row-unroll (expected 0 to " +
                            llvm::Twine(mlir::tfc::kMaxScheduleUnroll) + ")");
      lower.rowUnroll = unroll;
      continue;
    }
    if (token.consume_front("target=")) {
      if (!mlir::tfc::parseKernelTarget(token))
        return errorHandler("unknown value '" + token +
                            "' for option target (expected " +
                            mlir::tfc::kernelTargetNames() + ")");
      lower.target = token.str();
      continue;
    }
    if (!token.consume_front("fusion=")) {
      rest.push_back(token.str());
      continue;
    }
    if (token == "all")
      lower.fusion = tfc::FusionMode::All;
    else if (token == "none")
      lower.fusion = tfc::FusionMode::None;
    else
      return errorHandler("unknown value '" + token +
                          "' for option fusion (expected all or none)");
  }
  if (lower.precision == "fp16" && !lossScalingGiven)
    rest.push_back("loss-scaling=true");
  stepOptions = llvm::join(rest, " ");
  return mlir::success();
}

mlir::LogicalResult tfc::buildTrainPipeline(
    mlir::OpPassManager &pm, llvm::StringRef allOptions,
    llvm::function_ref<mlir::LogicalResult(const llvm::Twine &)> errorHandler) {
  std::string stepOptions;
  LowerToExecOptions lower;
  bool inBackward = false;
  if (mlir::failed(splitLoweringOptions(allOptions, stepOptions, lower,
                                        errorHandler, &inBackward)))
    return mlir::failure();
  // The pass parses its own options: one list of them, no copy here.
  TfcBuildTrainStepPassOptions options;
  if (mlir::failed(
          parseBuildTrainStepOptions(stepOptions, options, errorHandler)))
    return mlir::failure();
  // Every option is checked here, also those of a stage the pipeline
  // leaves out (a bad init-scale without loss-scaling).
  if (std::string problem = checkBuildTrainStepOptions(options);
      !problem.empty())
    return errorHandler(problem);
  // An update before the last gradient is known cannot depend on all of
  // them.
  if (inBackward) {
    // Options are checked: the optimizer is known.
    std::string unused, composed;
    if (!makeOptimizerRule(options, unused)->hasUpdateOp())
      composed = "optimizer=" + options.optimizer +
                 " (its update is plain ops over the gradients)";
    const char *conflict =
        options.maxGradNorm > 0 ? "max-grad-norm (the global norm needs every "
                                  "gradient first)"
        : options.clipGradValue > 0
            ? "clip-grad-value (the clipping stage reads the whole gradients)"
        : options.lossScaling   ? "loss-scaling (skipping a step needs every "
                                  "gradient first; fp16 turns it on: give "
                                  "loss-scaling=false)"
        : options.accumulateSteps > 1
            ? "accumulate-steps (the update needs every micro-batch first)"
        : !composed.empty() ? composed.c_str()
                            : nullptr;
    if (conflict)
      return errorHandler(llvm::Twine("optimizer-in-backward=true cannot be "
                                      "combined with ") +
                          conflict);
  }
  pm.addPass(createTfcInlineCheckpointsPass());
  // Precision is chosen on the loss, so the backward the train step derives
  // from it has the same types.
  if (lower.precision != "f32") {
    TfcAutoMixedPrecisionPassOptions precision;
    precision.precision = lower.precision;
    precision.function = options.function;
    pm.addPass(createTfcAutoMixedPrecisionPass(precision));
  }
  addPadShapes(pm, lower.pad, lower.target, options.function);
  // The step in its stages (gradients, accumulate, loss-scaling, clip,
  // optimizer), each a pass of its own.
  addTrainStepStages(pm, options);
  // Every function the pass builds becomes an entry of one program.
  lower.function = llvm::join(trainStepFunctions(options), ",");
  // The 16-bit weight copies become state the optimizer writes, with the
  // entry that computes them from the parameters.
  if (lower.precision == "bf16" || lower.precision == "fp16") {
    TfcWeightCopiesPassOptions copies;
    copies.function = lower.function;
    pm.addPass(createTfcWeightCopiesPass(copies));
    lower.function += ",refresh_weight_copies";
  }
  if (inBackward)
    pm.addPass(createTfcOptimizerInBackwardPass());
  lower.precision = "f32";
  lower.pad = "none";
  buildLowerToExecPipeline(pm, lower, /*inlineCheckpoints=*/false);
  return mlir::success();
}

mlir::LogicalResult tfc::trainAccumulateSteps(
    llvm::StringRef allOptions, int64_t &accumulateSteps,
    llvm::function_ref<mlir::LogicalResult(const llvm::Twine &)> errorHandler) {
  std::string stepOptions;
  LowerToExecOptions lower;
  if (mlir::failed(
          splitLoweringOptions(allOptions, stepOptions, lower, errorHandler)))
    return mlir::failure();
  TfcBuildTrainStepPassOptions options;
  if (mlir::failed(
          parseBuildTrainStepOptions(stepOptions, options, errorHandler)))
    return mlir::failure();
  if (std::string problem = checkBuildTrainStepOptions(options);
      !problem.empty())
    return errorHandler(problem);
  accumulateSteps = options.accumulateSteps;
  return mlir::success();
}

void tfc::registerPipelines() {
  mlir::PassPipelineRegistration<LowerToExecOptions>(
      "tfc-lower-to-exec",
      "Lower a tfc function to a tfcrt module: decompose, canonicalize, "
      "CSE, form kernels, fuse them (fusion=none: one op per kernel), "
      "bufferize and convert to tfcrt, merge identical kernels, schedule "
      "them for `target` (docs/execution.md)",
      [](mlir::OpPassManager &pm, const LowerToExecOptions &options) {
        buildLowerToExecPipeline(pm, options);
      });
  mlir::registerPassPipeline(
      "tfc-train-pipeline",
      "Build @train_step (or @accumulate_step and @apply_step) from a loss "
      "and lower them to tfcrt entries of the same names in one program; "
      "takes the options of --tfc-build-train-step, fusion=all|none, "
      "target=sm_80|sm_90|host, row-unroll=N, precision=f32|tf32|bf16|fp16 "
      "(fp16 turns loss-scaling on unless it is given), pad=auto|none|N, "
      "recompute=none|cheap|blocks and optimizer-in-backward=true|false",
      [](mlir::OpPassManager &pm, llvm::StringRef options,
         llvm::function_ref<mlir::LogicalResult(const llvm::Twine &)>
             errorHandler) {
        return buildTrainPipeline(pm, options, errorHandler);
      },
      [](llvm::function_ref<void(const mlir::detail::PassOptions &)>) {});
}
