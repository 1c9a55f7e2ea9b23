//===- Passes.td - tfc training passes ------------------------------------===//
//
// From a loss function to a training step (issue 4). Each pass lives in its
// own file; the base classes are generated from these definitions.
//
//===----------------------------------------------------------------------===//

#ifndef TFC_PASSES_TRAINING_PASSES_TD
#define TFC_PASSES_TRAINING_PASSES_TD

include "mlir/Pass/PassBase.td"

def TfcBuildTrainStepPass : Pass<"tfc-build-train-step", "::mlir::ModuleOp"> {
  let summary = "Build @train_step (gradients, clipping, loss scaling, "
                "optimizer) from a loss function";
  let description = [{
    Adds `@train_step` to the module, built from `@<function>` (default
    `@loss`, kept unchanged). Arguments, in order: the `tfc.param`
    arguments; the optimizer state of each parameter P (`{tfc.state =
    "P.exp_avg"}` and `"P.exp_avg_sq"` for adam/adamw, `"P.momentum_buffer"`
    for sgd with momentum, each of P's type); `{tfc.state = "step"}`
    (tensor<i64>); with loss scaling `{tfc.state = "loss_scale"}`
    (tensor<f32>) and `{tfc.state = "growth_tracker"}` (tensor<i64>);
    `{tfc.input = "lr"}` (tensor<f32>, set by the caller every step: a
    schedule never recompiles); then the other arguments of the loss (an
    unnamed one gets `tfc.input = "arg<N>"`, N its index in the loss).

    Results: the loss `{tfc.output = "loss"}`, then one `{tfc.update = "X"}`
    result per parameter and state X (its new value, written over X in
    place by the lowering), then with loss scaling `{tfc.output =
    "found_inf"}` (tensor<i1>).

    Semantics (PyTorch's): the gradients come from the VJPs of
    --tfc-autodiff; the optimizer ops get step + 1 as their step.
    `max-grad-norm` > 0 clips like torch.nn.utils.clip_grad_norm_:
    total = sqrt(sum of squares of all gradients, in f32), every gradient
    times min(max_norm / (total + 1e-6), 1). Loss scaling follows
    torch.cuda.amp.GradScaler: the loss is multiplied by the scale before
    differentiation; the gradients are multiplied by the f32 reciprocal of
    the scale and checked for inf/NaN; on overflow every parameter and
    state keeps its value (tfc.select on the 0-d found_inf), the scale is
    multiplied by `backoff-factor` and the tracker reset; otherwise the
    tracker counts up and at `growth-interval` the scale is multiplied by
    `growth-factor` and the tracker reset. State starts zeroed (the runtime
    zero-fills it), so a loss scale of exactly 0 reads as `init-scale`.

    ```mlir
    func.func @loss(%w: tensor<4x8xf32> {tfc.param = "w"},
                    %x: tensor<2x8xf32> {tfc.input = "x"}) -> tensor<f32>
    // with optimizer=adamw becomes, in addition:
    func.func @train_step(%w: tensor<4x8xf32> {tfc.param = "w"},
        %m: tensor<4x8xf32> {tfc.state = "w.exp_avg"},
        %v: tensor<4x8xf32> {tfc.state = "w.exp_avg_sq"},
        %step: tensor<i64> {tfc.state = "step"},
        %lr: tensor<f32> {tfc.input = "lr"},
        %x: tensor<2x8xf32> {tfc.input = "x"})
        -> (tensor<f32> {tfc.output = "loss"},
            tensor<4x8xf32> {tfc.update = "w"},
            tensor<4x8xf32> {tfc.update = "w.exp_avg"},
            tensor<4x8xf32> {tfc.update = "w.exp_avg_sq"},
            tensor<i64> {tfc.update = "step"})
    ```

    Gradient accumulation (`accumulate-steps` = k > 1) builds two
    functions instead of `@train_step`, run k times and once per optimizer
    step (torch's recipe: `scaler.scale(loss / k).backward()` per
    micro-batch, then one `optimizer.step()` and `zero_grad()`):

    - `@accumulate_step(params, accumulators, [loss_scale], batch...)`:
      the forward and backward of `(loss / k) * scale`; every gradient is
      added (in f32) to its accumulator `{tfc.state = "P.grad_accum"}` (f32,
      P's shape). Results: the plain micro-batch loss `{tfc.output =
      "loss"}` and one `{tfc.update = "P.grad_accum"}` per parameter. It
      reads the scale but never changes it.
    - `@apply_step(params, optimizer state, step, [loss_scale,
      growth_tracker], lr inputs, accumulators)`: exactly the tail of
      `@train_step` (unscale and inf/NaN check, clipping, learning rate,
      optimizer, skipped-step selects, scaler update) applied to the
      accumulated gradients, plus every accumulator reset to zero, also on
      a skipped step (torch zero_grad()s after every step attempt). Results:
      the updates, then `found_inf` and `applied_lr` as for `@train_step`;
      no loss.

    ```mlir
    // accumulate-steps=4, optimizer=sgd, for the loss above:
    func.func @accumulate_step(%w: tensor<4x8xf32> {tfc.param = "w"},
        %acc: tensor<4x8xf32> {tfc.state = "w.grad_accum"},
        %x: tensor<2x8xf32> {tfc.input = "x"})
        -> (tensor<f32> {tfc.output = "loss"},
            tensor<4x8xf32> {tfc.update = "w.grad_accum"})
    func.func @apply_step(%w: tensor<4x8xf32> {tfc.param = "w"},
        %step: tensor<i64> {tfc.state = "step"},
        %lr: tensor<f32> {tfc.input = "lr"},
        %acc: tensor<4x8xf32> {tfc.state = "w.grad_accum"})
        -> (tensor<4x8xf32> {tfc.update = "w"},
            tensor<i64> {tfc.update = "step"},
            tensor<4x8xf32> {tfc.update = "w.grad_accum"})
    ```

    Errors: everything --tfc-autodiff rejects; an unknown optimizer;
    accumulate-steps < 1; an option out of range (betas outside [0, 1), negative eps, weight decay,
    momentum or max-grad-norm, nesterov without momentum, a growth factor
    <= 1, a backoff factor outside (0, 1), growth-interval < 1, init-scale
    <= 0); a loss argument already named lr/step/loss_scale/growth_tracker
    or P.exp_avg... (or P.grad_accum); an existing symbol @train_step
    (@accumulate_step, @apply_step).
  }];
  let dependentDialects = ["::mlir::tfc::TfcDialect"];
  let options = [
    Option<"function", "function", "std::string", /*default=*/"\"loss\"",
           "The loss function to train">,
    Option<"optimizer", "optimizer", "std::string", /*default=*/"\"adamw\"",
           "adamw, adam or sgd">,
    Option<"beta1", "beta1", "double", /*default=*/"0.9",
           "Adam/AdamW first-moment decay">,
    Option<"beta2", "beta2", "double", /*default=*/"0.999",
           "Adam/AdamW second-moment decay">,
    Option<"eps", "eps", "double", /*default=*/"1e-8",
           "Adam/AdamW epsilon (outside the sqrt)">,
    Option<"weightDecay", "weight-decay", "double", /*default=*/"-1.0",
           "Weight decay; negative means the optimizer's torch default "
           "(0.01 for adamw, 0 otherwise)">,
    Option<"decayAll", "decay-all", "bool", /*default=*/"false",
           "Apply weight decay to every parameter; by default parameters of "
           "rank < 2 (biases, norm weights) form a group without decay">,
    Option<"momentum", "momentum", "double", /*default=*/"0.0",
           "SGD momentum (0: no momentum buffer)">,
    Option<"nesterov", "nesterov", "bool", /*default=*/"false",
           "SGD Nesterov momentum">,
    Option<"maxGradNorm", "max-grad-norm", "double", /*default=*/"0.0",
           "Global gradient-norm clipping threshold (0: off)">,
    Option<"schedule", "schedule", "std::string", /*default=*/"\"constant\"",
           "Learning-rate schedule computed on the device from the step "
           "counter: constant">,
    Option<"lossScaling", "loss-scaling", "bool", /*default=*/"false",
           "Dynamic loss scaling with GradScaler semantics">,
    Option<"initScale", "init-scale", "double", /*default=*/"65536.0",
           "The loss scale used while the loss_scale state is 0">,
    Option<"growthFactor", "growth-factor", "double", /*default=*/"2.0",
           "Scale multiplier after growth-interval clean steps">,
    Option<"backoffFactor", "backoff-factor", "double", /*default=*/"0.5",
           "Scale multiplier after an overflow">,
    Option<"growthInterval", "growth-interval", "int64_t",
           /*default=*/"2000", "Clean steps between scale growths">,
    Option<"minScale", "min-scale", "double", /*default=*/"0.0",
           "Lower bound of the loss scale (0: none, as GradScaler)">,
    Option<"maxScale", "max-scale", "double", /*default=*/"0.0",
           "Upper bound of the loss scale (0: none, as GradScaler)">,
    Option<"accumulateSteps", "accumulate-steps", "int64_t",
           /*default=*/"1",
           "Micro-batches per optimizer step: > 1 builds @accumulate_step "
           "and @apply_step instead of @train_step">,
  ];
}

#endif // TFC_PASSES_TRAINING_PASSES_TD
