//===- Passes.h - tfc training passes ---------------------------*- C++ -*-===//
//
// Training-step construction (see Passes.td for what each pass does):
// createTfcBuildTrainStepPass(options) and registerTfcTrainingPasses().
//
//===----------------------------------------------------------------------===//

#ifndef TFC_PASSES_TRAINING_PASSES_H
#define TFC_PASSES_TRAINING_PASSES_H

#include "dialects/tfc/TfcDialect.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

#include <memory>

namespace tfc {

#define GEN_PASS_DECL
#include "passes/training/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "passes/training/Passes.h.inc"

/// Parses `text` as --tfc-build-train-step's option string ("optimizer=sgd
/// accumulate-steps=4") with the pass's own parser, so tools and pipelines
/// that need an option's value read it from the one list of options.
mlir::LogicalResult parseBuildTrainStepOptions(
    llvm::StringRef text, TfcBuildTrainStepPassOptions &options,
    llvm::function_ref<mlir::LogicalResult(const llvm::Twine &)> errorHandler);

/// Checks every value of --tfc-build-train-step's options as the pass does
/// before it builds anything (a known optimizer and its options in range,
/// eps, weight decay, clipping, accumulation, the schedule, the loss
/// scaler); returns the problem, or "" when they are fine. Tools call it to
/// refuse bad options before they read a model.
std::string checkBuildTrainStepOptions(const TfcBuildTrainStepPassOptions &options);

/// The functions --tfc-build-train-step adds for `options`, in module
/// order: {"train_step"}, or {"accumulate_step", "apply_step"} with
/// accumulate-steps > 1. These are also the entries of the lowered program.
llvm::SmallVector<std::string>
trainStepFunctions(const TfcBuildTrainStepPassOptions &options);

} // namespace tfc

#endif // TFC_PASSES_TRAINING_PASSES_H
