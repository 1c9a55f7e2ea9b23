//===- StepForm.h - the form the train-step stages hand on -----*- C++ -*-===//
//
// A training step is built by five passes run in order (Passes.td):
// --tfc-step-gradients, --tfc-step-accumulate, --tfc-step-loss-scaling,
// --tfc-step-clip and --tfc-step-optimizer. Between them a step function is
// a plain func.func in this form, which every stage reads and extends:
//
// - its arguments are named (tfc.param / tfc.state / tfc.input) and kept in
//   one order: parameters, gradient accumulators, optimizer state, `step`,
//   `loss_scale`, `growth_tracker`, the schedule's inputs, the batch; its
//   results likewise: the loss, the gradients (`{tfc.grad = "P"}`, which the
//   optimizer stage consumes), then the updates of parameters, optimizer
//   state, step, scale, tracker and accumulators, then `found_inf` and
//   `applied_lr`. A stage adds an argument or result wherever its kind goes,
//   so the order never depends on which stages ran;
// - the backward starts from one 0-d constant 1.0 marked `tfc.loss_seed`
//   (everything that depends on it is the backward); a stage that scales the
//   backward (accumulation, loss scaling) multiplies the seed;
// - the function attribute `tfc.step_stages` lists the stages that ran, so
//   a stage run out of order or twice says so. The optimizer stage, the
//   last, removes the record and the seed mark.
//
//===----------------------------------------------------------------------===//

#ifndef TFC_PASSES_TRAINING_STEPFORM_H
#define TFC_PASSES_TRAINING_STEPFORM_H

#include "dialects/tfc/TfcDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/StringRef.h"

#include <string>

namespace tfc {

/// The attributes of the form (the dialect verifies them).
constexpr llvm::StringLiteral kGradAttrName =
    mlir::tfc::TfcDialect::kGradAttrName;
constexpr llvm::StringLiteral kLossSeedAttrName =
    mlir::tfc::TfcDialect::kLossSeedAttrName;
constexpr llvm::StringLiteral kStepStagesAttrName =
    mlir::tfc::TfcDialect::kStepStagesAttrName;

/// The names of the states and outputs the stages add.
constexpr llvm::StringLiteral kStepState = "step";
constexpr llvm::StringLiteral kLossScaleState = "loss_scale";
constexpr llvm::StringLiteral kGrowthTrackerState = "growth_tracker";
constexpr llvm::StringLiteral kGradAccumSuffix = ".grad_accum";
constexpr llvm::StringLiteral kLossOutput = "loss";
constexpr llvm::StringLiteral kFoundInfOutput = "found_inf";

/// The stages, in the order they must run.
enum class StepStage { gradients, accumulate, lossScaling, clip, optimizer };

/// "--tfc-step-gradients", ...: the flag of `stage`'s pass.
llvm::StringRef stepStageFlag(StepStage stage);

/// The step functions of `module` that `stage` runs on: every function that
/// records earlier stages (only those returning gradients when
/// `needGradients`). Checks the order: a function on which `stage` or a
/// later one already ran, or none at all, is an error (emitted). Records
/// `stage` on each function returned.
mlir::FailureOr<llvm::SmallVector<mlir::func::FuncOp>>
enterStage(mlir::ModuleOp module, StepStage stage, bool needGradients);

/// Records `stage` as the first stage of a new step function.
void recordFirstStage(mlir::func::FuncOp func, StepStage stage);

/// Completes every step function of `module`: removes the stage record and
/// the seed mark (the optimizer stage's last act).
void finishStepFunctions(mlir::ModuleOp module);

/// The value of the loss seed of `func`, or null (a loss that depends on no
/// parameter has no backward).
mlir::Value lossSeed(mlir::func::FuncOp func);

/// Multiplies the whole backward by `factor(seed)`: the ops `factor` builds
/// go right before the seed's first reader (after whatever the caller built
/// right after the seed) and every other reader of the seed reads their
/// result instead. The factor of a later call is applied first, next to the
/// seed (loss scaling after accumulation gives (1 * scale) / k).
void scaleLossSeed(
    mlir::func::FuncOp func,
    llvm::function_ref<mlir::Value(mlir::OpBuilder &, mlir::Value)> factor);

/// The name of argument `index` under tfc.param, tfc.state or tfc.input
/// ("" when it has none).
llvm::StringRef stepArgumentName(mlir::func::FuncOp func, unsigned index);

/// The argument named `name` (under any key), or null.
mlir::BlockArgument findStepArgument(mlir::func::FuncOp func,
                                     llvm::StringRef name);

/// Adds an argument `{key = name}` of `type` at its place in the order.
/// Fails with an error naming `stage` when an argument of that name exists
/// (a loss argument named like a state or input the stage adds).
mlir::FailureOr<mlir::BlockArgument>
addStepArgument(mlir::func::FuncOp func, StepStage stage, mlir::Type type,
                llvm::StringRef key, llvm::StringRef name);

/// An argument `{key = name}` of `type` that a stage adds.
struct NewStepArgument {
  mlir::Type type;
  llvm::StringRef key;
  std::string name;
};

/// addStepArgument for each of `added`, in order, at the cost of one: the
/// function type changes once (a stage adding state for every parameter
/// would otherwise take time quadratic in their number). Returns the new
/// arguments, in the order of `added`.
mlir::FailureOr<llvm::SmallVector<mlir::BlockArgument>>
addStepArguments(mlir::func::FuncOp func, StepStage stage,
                 llvm::ArrayRef<NewStepArgument> added);

/// Adds a result `{key = name}` returning `value` at its place in the order.
void addStepResult(mlir::func::FuncOp func, mlir::Value value,
                   llvm::StringRef key, llvm::StringRef name);

/// A result `{key = name}` returning `value` that a stage adds.
struct NewStepResult {
  mlir::Value value;
  llvm::StringRef key;
  std::string name;
};

/// addStepResult for each of `added`, in order, at the cost of one.
void addStepResults(mlir::func::FuncOp func,
                    llvm::ArrayRef<NewStepResult> added);

/// The index of the result `{key = name}`, if any.
std::optional<unsigned> findStepResult(mlir::func::FuncOp func,
                                       llvm::StringRef key,
                                       llvm::StringRef name);

/// One gradient result: its index, the parameter, its value.
struct StepGradient {
  unsigned result;
  mlir::BlockArgument param;
  mlir::Value value;
};

/// The `{tfc.grad}` results of `func`, in order.
llvm::SmallVector<StepGradient> stepGradients(mlir::func::FuncOp func);

/// Sets `builder` right after the last op defining a gradient result or
/// `found_inf` (the start of the body when none does): where the ops that
/// read the gradients go, ahead of what a stage placed later (the scaler
/// update), so they keep the order of torch's step (unscale, clip, update,
/// scaler update).
void setInsertionPointAfterGradients(mlir::OpBuilder &builder,
                                     mlir::func::FuncOp func);

/// Makes result `index` return `value` (its attributes unchanged).
void setStepResult(mlir::func::FuncOp func, unsigned index, mlir::Value value);

/// Removes the results whose indices are set in `indices`.
void eraseStepResults(mlir::func::FuncOp func,
                      const llvm::BitVector &indices);

/// The return op of a step function (one block).
mlir::func::ReturnOp stepReturn(mlir::func::FuncOp func);

} // namespace tfc

#endif // TFC_PASSES_TRAINING_STEPFORM_H
