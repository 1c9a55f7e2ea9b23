//===- OptimizerRule.h - one optimizer inside --tfc-build-train-step -*- C++
//-*-===//
//
// --tfc-build-train-step builds the same skeleton for every optimizer
// (gradients, unscaling, clipping, the step counter, skipped steps); what
// differs is the state a parameter carries and the ops of one update. An
// OptimizerRule supplies those two things, so each optimizer lives in its own
// file (TorchOptimizers.cpp: adamw, adam, sgd; Adafactor.cpp; AdamW8bit.cpp;
// RMSprop.cpp; Adagrad.cpp; Adamax.cpp; NAdam.cpp; RAdam.cpp) and adding one
// touches neither the skeleton nor the other optimizers: its factory joins
// makeOptimizerRule's list.
//
//===----------------------------------------------------------------------===//

#ifndef TFC_PASSES_TRAINING_OPTIMIZERRULE_H
#define TFC_PASSES_TRAINING_OPTIMIZERRULE_H

#include "passes/training/Passes.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"

#include <memory>
#include <string>

namespace tfc {

/// One optimizer-state tensor of a parameter P: the argument is named
/// "P.<suffix>" and has type `type` (often P's type, not always: factored
/// or quantized moments have their own shapes and element types).
struct StateSpec {
  std::string suffix;
  mlir::RankedTensorType type;
};

/// Everything one parameter's update reads.
struct ParamStep {
  mlir::Value param;
  /// d loss / d param, already unscaled and clipped; param's shape, any
  /// float type.
  mlir::Value grad;
  /// The incoming state, in the order of OptimizerRule::stateOf.
  llvm::SmallVector<mlir::Value> states;
  /// The learning rate of this step (0-d f32) and the step count after the
  /// increment (0-d i64, 1 on the first update).
  mlir::Value lr, step;
  /// The weight decay of this parameter's group.
  double weightDecay = 0.0;
};

/// The new value of a parameter and of each of its states (same order).
struct ParamStepResult {
  mlir::Value param;
  llvm::SmallVector<mlir::Value> states;
};

/// One optimizer as seen by --tfc-build-train-step.
class OptimizerRule {
public:
  virtual ~OptimizerRule();
  /// The state tensors of a parameter of type `param`, in argument order.
  virtual llvm::SmallVector<StateSpec>
  stateOf(mlir::RankedTensorType param) const = 0;
  /// The weight decay when the pass option is negative (torch's default).
  virtual double defaultWeightDecay() const { return 0.0; }
  /// The eps when the pass option is negative (torch's default):
  /// makeOptimizerRule builds the rule again with it.
  virtual double defaultEps() const { return 1e-8; }
  /// Whether emitStep emits one update op per parameter (TfcOptimizerUpdates.h,
  /// which --tfc-optimizer-in-backward moves) rather than plain ops over the
  /// gradient.
  virtual bool hasUpdateOp() const { return false; }
  /// Emits the ops of one update of one parameter at the builder's point.
  virtual ParamStepResult emitStep(mlir::OpBuilder &builder,
                                   mlir::Location loc,
                                   const ParamStep &in) const = 0;
};

/// The Adam family's argument check (beta1 and beta2 in [0, 1)): false with
/// `error` set when one is out of range.
bool checkBetas(const TfcBuildTrainStepPassOptions &options,
                std::string &error);

/// The type of a state tensor that follows its parameter element for
/// element: the parameter's shape in optimizerComputeType's element type
/// (f64 for f64 parameters, else f32).
mlir::RankedTensorType elementwiseStateType(mlir::RankedTensorType param);

/// The rule for `options.optimizer`, or null with `error` set when the name
/// is unknown or one of its options is out of range.
std::unique_ptr<OptimizerRule>
makeOptimizerRule(const TfcBuildTrainStepPassOptions &options,
                  std::string &error);

/// Per optimizer family (each in its own file); same contract as
/// makeOptimizerRule, null when `options.optimizer` is not theirs.
std::unique_ptr<OptimizerRule>
makeTorchOptimizerRule(const TfcBuildTrainStepPassOptions &options,
                       std::string &error);
/// adamw8bit (AdamW8bit.cpp).
std::unique_ptr<OptimizerRule>
makeAdamW8bitRule(const TfcBuildTrainStepPassOptions &options,
                  std::string &error);

/// Adafactor as torch.optim.Adafactor (Adafactor.cpp): factored second
/// moments "P.row_var" / "P.col_var" for rank >= 2, "P.variance" otherwise.
std::unique_ptr<OptimizerRule>
makeAdafactorRule(const TfcBuildTrainStepPassOptions &options,
                  std::string &error);

/// torch.optim.RMSprop (RMSprop.cpp): "P.square_avg", with momentum > 0
/// "P.momentum_buffer", with centered "P.grad_avg"; plain tfc ops.
std::unique_ptr<OptimizerRule>
makeRmspropRule(const TfcBuildTrainStepPassOptions &options,
                std::string &error);

/// torch.optim.Adagrad (Adagrad.cpp): "P.sum"; plain tfc ops.
std::unique_ptr<OptimizerRule>
makeAdagradRule(const TfcBuildTrainStepPassOptions &options,
                std::string &error);

/// torch.optim.Adamax (Adamax.cpp): "P.exp_avg", "P.exp_inf"; plain tfc ops.
std::unique_ptr<OptimizerRule>
makeAdamaxRule(const TfcBuildTrainStepPassOptions &options, std::string &error);

/// torch.optim.NAdam (NAdam.cpp): "P.mu_product" (0-d f32), "P.exp_avg",
/// "P.exp_avg_sq"; plain tfc ops.
std::unique_ptr<OptimizerRule>
makeNAdamRule(const TfcBuildTrainStepPassOptions &options, std::string &error);

/// torch.optim.RAdam (RAdam.cpp): "P.exp_avg", "P.exp_avg_sq"; plain tfc
/// ops.
std::unique_ptr<OptimizerRule>
makeRAdamRule(const TfcBuildTrainStepPassOptions &options, std::string &error);

} // namespace tfc

#endif // TFC_PASSES_TRAINING_OPTIMIZERRULE_H
