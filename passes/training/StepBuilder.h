//===- StepBuilder.h - the functions of --tfc-build-train-step --*- C++ -*-===//
//
// --tfc-build-train-step builds either one @train_step or, with gradient
// accumulation, an @accumulate_step (forward + backward of one micro-batch,
// gradients summed into accumulators) and an @apply_step (the optimizer tail
// on the accumulated gradients). The three share their signature layout and
// the optimizer tail; StepBuilder holds both so no shape copies the other.
//
//===----------------------------------------------------------------------===//

#ifndef TFC_PASSES_TRAINING_STEPBUILDER_H
#define TFC_PASSES_TRAINING_STEPBUILDER_H

#include "passes/training/OptimizerRule.h"
#include "passes/training/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include <string>

namespace tfc {

/// The function a StepBuilder builds.
enum class StepKind {
  /// @train_step: forward, backward and optimizer in one function.
  train,
  /// @accumulate_step: forward and backward of one micro-batch.
  accumulate,
  /// @apply_step: the optimizer on the accumulated gradients.
  apply,
};

/// The symbol name of the function of `kind`.
llvm::StringRef stepFunctionName(StepKind kind);

/// The functions --tfc-build-train-step builds for `options`, in order:
/// {train} or, with accumulate-steps > 1, {accumulate, apply}.
llvm::SmallVector<StepKind>
stepKinds(const TfcBuildTrainStepPassOptions &options);

/// Builds the functions of a training step from one loss function.
class StepBuilder {
public:
  StepBuilder(const TfcBuildTrainStepPassOptions &options,
              const OptimizerRule &rule, mlir::func::FuncOp loss)
      : options(options), rule(rule), loss(loss) {}

  /// Checks the loss function (one block, one scalar float result, at least
  /// one tfc.param argument) and sorts its arguments into parameters and
  /// batch. Emits a diagnostic on failure.
  mlir::LogicalResult init();

  /// Adds the function of `kind` after the loss. On failure a diagnostic was
  /// emitted and nothing was added.
  mlir::LogicalResult build(StepKind kind);

private:
  struct Layout;
  struct Tail;

  mlir::LogicalResult signature(StepKind kind, Layout &layout);
  mlir::LogicalResult buildBody(mlir::func::FuncOp func, StepKind kind,
                                const Layout &layout);
  Tail buildOptimizerTail(mlir::OpBuilder &builder, mlir::Location loc,
                          mlir::func::FuncOp func, const Layout &layout,
                          llvm::SmallVector<mlir::Value> grads,
                          mlir::Value scale);

  TfcBuildTrainStepPassOptions options;
  const OptimizerRule &rule;
  mlir::func::FuncOp loss;
  mlir::RankedTensorType lossType;
  /// The loss's tfc.param arguments (with their names) and the others.
  llvm::SmallVector<unsigned> lossParams, lossOthers;
  llvm::SmallVector<std::string> paramNames;
};

} // namespace tfc

#endif // TFC_PASSES_TRAINING_STEPBUILDER_H
