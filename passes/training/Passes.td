//===- Passes.td - tfc training passes ------------------------------------===//
//
// From a loss function to a training step (issue 4). Each pass lives in its
// own file; the base classes are generated from these definitions.
//
//===----------------------------------------------------------------------===//

#ifndef TFC_PASSES_TRAINING_PASSES_TD
#define TFC_PASSES_TRAINING_PASSES_TD

include "mlir/Pass/PassBase.td"

defvar TfcStepGradientsOptions = [
    Option<"function", "function", "std::string", /*default=*/"\"loss\"",
           "The loss function to train">
];

defvar TfcStepAccumulateOptions = [
    Option<"accumulateSteps", "accumulate-steps", "int64_t",
           /*default=*/"1",
           "Micro-batches per optimizer step: > 1 builds @accumulate_step "
           "and @apply_step instead of @train_step">
];

defvar TfcStepLossScalingOptions = [
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
           "Upper bound of the loss scale (0: none, as GradScaler)">
];

defvar TfcStepClipOptions = [
    Option<"maxGradNorm", "max-grad-norm", "double", /*default=*/"0.0",
           "Global gradient-norm clipping threshold (0: off)">,
    Option<"clipGradValue", "clip-grad-value", "double", /*default=*/"0.0",
           "Clamp every gradient element to [-v, v] (0: off)">
];

defvar TfcStepOptimizerOptions = [
    Option<"optimizer", "optimizer", "std::string", /*default=*/"\"adamw\"",
           "adamw, adam, sgd, adafactor, adamw8bit, rmsprop, adagrad, "
           "adamax, nadam or radam (torch.optim's AdamW, Adam, SGD, "
           "Adafactor, RMSprop, Adagrad, Adamax, NAdam, RAdam; bitsandbytes' "
           "AdamW8bit)">,
    Option<"beta1", "beta1", "double", /*default=*/"0.9",
           "Adam/AdamW/Adamax/NAdam/RAdam first-moment decay">,
    Option<"beta2", "beta2", "double", /*default=*/"0.999",
           "Adam/AdamW/NAdam/RAdam second-moment decay (Adamax: of the "
           "infinity norm)">,
    Option<"eps", "eps", "double", /*default=*/"-1.0",
           "Epsilon of the denominator as torch's optimizer adds it (outside "
           "the sqrt; adamax: to |g| inside its max); -1 (the default) means "
           "the optimizer's torch default (1e-10 for adagrad, 1e-8 "
           "otherwise)">,
    Option<"weightDecay", "weight-decay", "double", /*default=*/"-1.0",
           "Weight decay; negative means the optimizer's torch default "
           "(0.01 for adamw, 0 otherwise)">,
    Option<"decayAll", "decay-all", "bool", /*default=*/"false",
           "Apply weight decay to every parameter; by default parameters of "
           "rank < 2 (biases, norm weights) form a group without decay">,
    Option<"blockSize", "block-size", "int64_t", /*default=*/"256",
           "adamw8bit: elements per quantization block (a power of two in "
           "[32, 1024])">,
    Option<"momentum", "momentum", "double", /*default=*/"0.0",
           "SGD/RMSprop momentum (0: no momentum buffer)">,
    Option<"nesterov", "nesterov", "bool", /*default=*/"false",
           "SGD Nesterov momentum">,
    Option<"alpha", "alpha", "double", /*default=*/"0.99",
           "RMSprop: smoothing constant of square_avg, in [0, 1)">,
    Option<"centered", "centered", "bool", /*default=*/"false",
           "RMSprop: divide by the estimated variance of the gradient "
           "(keeps grad_avg)">,
    Option<"lrDecay", "lr-decay", "double", /*default=*/"0.0",
           "Adagrad: the step size is lr / (1 + (t - 1) * lr-decay) (>= 0)">,
    Option<"initialAccumulatorValue", "initial-accumulator-value", "double",
           /*default=*/"0.0",
           "Adagrad: the value of sum before the first step (>= 0)">,
    Option<"momentumDecay", "momentum-decay", "double", /*default=*/"0.004",
           "NAdam: momentum schedule mu_t = beta1 (1 - 0.96^(t "
           "momentum-decay) / 2) (>= 0)">,
    Option<"nadamFixedProduct", "nadam-fixed-product", "bool",
           /*default=*/"false",
           "NAdam: the next momentum product as torch >= 2.0 forms it, "
           "mu_product * mu_{t+1} (false: torch 1.13's, which multiplies by "
           "mu_t once more)">,
    Option<"beta2Decay", "beta2-decay", "double", /*default=*/"-0.8",
           "Adafactor: beta2_t = 1 - t^beta2-decay (must be <= 0)">,
    Option<"eps1", "eps1", "double", /*default=*/"0.0",
           "Adafactor: floor of the variance estimate (squared) and of the "
           "row-factor mean (0: the machine epsilon of the parameter's type)">,
    Option<"eps2", "eps2", "double", /*default=*/"1e-3",
           "Adafactor: floor of RMS(param) in the relative step size">,
    Option<"clipThreshold", "clip-threshold", "double", /*default=*/"1.0",
           "Adafactor: update clipping threshold d (must be >= 1)">,
    Option<"schedule", "schedule", "std::string", /*default=*/"\"constant\"",
           "Learning-rate schedule computed on the device from the step "
           "counter: constant, warmup-cosine or warmup-linear">
];

def TfcBuildTrainStepPass : Pass<"tfc-build-train-step", "::mlir::ModuleOp"> {
  let summary = "Build @train_step (gradients, clipping, loss scaling, "
                "optimizer) from a loss function";
  let description = [{
    Adds `@train_step` to the module, built from `@<function>` (default
    `@loss`, kept unchanged), by running the five stages below in order on
    the module: --tfc-step-gradients, --tfc-step-accumulate (with
    accumulate-steps > 1), --tfc-step-loss-scaling (with loss-scaling),
    --tfc-step-clip (with max-grad-norm > 0) and --tfc-step-optimizer; the
    options are theirs under the same names (--tfc-train-pipeline composes
    the same stages). Arguments, in order: the `tfc.param`
    arguments; the optimizer state of each parameter P (`{tfc.state =
    "P.exp_avg"}` and `"P.exp_avg_sq"` for adam/adamw, `"P.momentum_buffer"`
    for sgd with momentum, each of P's type; for adamw8bit, when P is f32
    with at least 4096 elements, `"P.exp_avg.codes"` and `"P.exp_avg_sq.codes"`
    (ui8, P's shape) and `"P.exp_avg.absmax"` and `"P.exp_avg_sq.absmax"`
    (f32, one per `block-size` elements), else the two f32 moments of
    adamw; for adafactor, f32
    `"P.row_var"` (P's shape with the last dim 1) and `"P.col_var"` (with
    the second-to-last dim 1) when rank(P) >= 2, else `"P.variance"` (P's
    shape); for rmsprop `"P.square_avg"`, with momentum > 0
    `"P.momentum_buffer"`, with centered `"P.grad_avg"`; for adagrad
    `"P.sum"`; for adamax `"P.exp_avg"`, `"P.exp_inf"`; for nadam
    `"P.mu_product"` (tensor<f32>), `"P.exp_avg"`, `"P.exp_avg_sq"`; for
    radam `"P.exp_avg"`, `"P.exp_avg_sq"`; the states of these five are f64
    for f64 parameters and f32 otherwise (torch's master-weight type), of
    P's shape unless said);
    `{tfc.state = "step"}`
    (tensor<i64>); with loss scaling `{tfc.state = "loss_scale"}`
    (tensor<f32>) and `{tfc.state = "growth_tracker"}` (tensor<i64>);
    the learning-rate inputs: `{tfc.input = "lr"}` (tensor<f32>, the
    peak rate), and for schedule=warmup-cosine|warmup-linear also
    `"min_lr"` (tensor<f32>), `"warmup_steps"` and `"total_steps"`
    (tensor<i64>); then the other arguments of the loss (an unnamed one
    gets `tfc.input = "arg<N>"`, N its index in the loss).

    Results: the loss `{tfc.output = "loss"}`, then one `{tfc.update = "X"}`
    result per parameter and state X (its new value, written over X in
    place by the lowering), then with loss scaling `{tfc.output =
    "found_inf"}` (tensor<i1>), then with a warmup schedule `{tfc.output =
    "applied_lr"}` (tensor<f32>, the rate this step used).

    The learning rate is computed in the step from the `step` state (the
    steps taken so far, s) and the inputs, so changing any rate never
    recompiles and a schedule needs no host work per step; a skipped step
    does not advance s, so it does not advance the schedule either:
    constant: lr; warmup-*: lr * (s + 1) / warmup_steps while s <
    warmup_steps, then with p = clamp((s - warmup_steps) / max(1,
    total_steps - warmup_steps - 1), 0, 1) cosine min_lr + (lr - min_lr) *
    (1 + cos(pi p)) / 2 or linear lr - (lr - min_lr) * p (f32).

    Semantics (PyTorch's): the gradients come from the VJPs of
    --tfc-autodiff; the optimizer ops get step + 1 as their step.
    `max-grad-norm` > 0 clips like torch.nn.utils.clip_grad_norm_:
    total = sqrt(sum of squares of all gradients, in f32), every gradient
    times min(max_norm / (total + 1e-6), 1); `clip-grad-value` > 0 clamps
    every gradient element to [-v, v] first, like
    torch.nn.utils.clip_grad_value_. Loss scaling follows
    torch.cuda.amp.GradScaler: the loss is multiplied by the scale before
    differentiation; the gradients are multiplied by the f32 reciprocal of
    the scale and checked for inf/NaN; on overflow every parameter and
    state keeps its value (tfc.select on the 0-d found_inf), the scale is
    multiplied by `backoff-factor` and the tracker reset; otherwise the
    tracker counts up and at `growth-interval` the scale is multiplied by
    `growth-factor` and the tracker reset. State starts zeroed (the runtime
    zero-fills it), so a loss scale of exactly 0 reads as `init-scale`.
    `min-scale` / `max-scale` (> 0) clamp the scale after each update (not
    in GradScaler; 0 leaves that side unbounded).

    optimizer=adafactor follows torch.optim.Adafactor (PyTorch >= 2.5; Shazeer
    & Stern 2018 with torch's conventions) and is built from plain tfc ops,
    in f32. With t the step after the increment, for each parameter P with
    gradient G (1 - beta2_t = t^beta2-decay; eps1 = 0 means the machine
    epsilon of P's element type):
    ```
    rho = min(lr, 1/sqrt(t));  alpha = max(eps2, RMS(P)) * rho
    P = P * (1 - lr * weight_decay)                 (if weight_decay != 0)
    rank >= 2: R = lerp(R, mean(G^2, dim -1), 1 - beta2_t)
               C = lerp(C, mean(G^2, dim -2), 1 - beta2_t)
               V = R * C / max(mean(R, dim -2), eps1)
    rank < 2:  V = lerp(V, G^2, 1 - beta2_t)
    U = G / sqrt(max(V, eps1^2));  P = P - alpha / max(1, RMS(U) / d) * U
    ```
    (RMS(X) = sqrt(mean(X^2)), d = `clip-threshold`, means keep dims.)
    Unlike the paper, lr caps rho (the paper: 0.01), weight decay is
    decoupled and scaled by lr, and eps1 floors the row mean and V instead
    of being added to G^2. Its weight decay defaults to 0.

    optimizer=rmsprop, adagrad, adamax, nadam and radam follow
    torch.optim.RMSprop, Adagrad, Adamax, NAdam and RAdam (torch 1.13's
    single-tensor step, in its order of operations; the scalars torch forms
    from the step count in Python floats in f64) and are built from plain
    tfc ops; their weight decay is torch's L2 penalty (G + weight_decay * P,
    default 0). rmsprop reads alpha, eps, momentum and centered; adagrad
    lr-decay, initial-accumulator-value (the value `"P.sum"` reads on the
    first step: the runtime zero-fills state) and eps (default 1e-10);
    adamax and radam beta1, beta2 and eps; nadam beta1, beta2, eps and
    momentum-decay (`"P.mu_product"` reads 1 on the first step). The
    formulas are in docs/training.md.

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
    - `@apply_step(params, accumulators, optimizer state, step,
      [loss_scale, growth_tracker], lr inputs)`: exactly the tail of
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
        %acc: tensor<4x8xf32> {tfc.state = "w.grad_accum"},
        %step: tensor<i64> {tfc.state = "step"},
        %lr: tensor<f32> {tfc.input = "lr"})
        -> (tensor<4x8xf32> {tfc.update = "w"},
            tensor<i64> {tfc.update = "step"},
            tensor<4x8xf32> {tfc.update = "w.grad_accum"})
    ```

    Errors: everything --tfc-autodiff rejects; an unknown optimizer;
    accumulate-steps < 1; an option out of range (betas outside [0, 1),
    negative eps or weight decay other than -1 (the optimizer's default),
    negative momentum or max-grad-norm, nesterov without momentum, a block
    size that is not a power of two in [32, 1024], beta2-decay > 0,
    negative eps1 or eps2, clip-threshold < 1, alpha outside [0, 1),
    negative lr-decay, initial-accumulator-value or momentum-decay, an
    option of rmsprop, adagrad or nadam given to another optimizer, a growth
    factor
    <= 1, a backoff factor outside (0, 1), growth-interval < 1, init-scale
    <= 0, min-scale/max-scale negative or not around init-scale, an unknown
    schedule); a loss argument already named lr/step/loss_scale/growth_tracker
    or P.exp_avg... (or P.grad_accum); an existing symbol @train_step
    (@accumulate_step, @apply_step).
  }];
  let dependentDialects = ["::mlir::tfc::TfcDialect"];
  let options = !listconcat(TfcStepGradientsOptions, TfcStepAccumulateOptions,
      TfcStepLossScalingOptions, TfcStepClipOptions, TfcStepOptimizerOptions,
      [Option<"lossScaling", "loss-scaling", "bool", /*default=*/"false",
           "Dynamic loss scaling with GradScaler semantics">]);
}

// The stages --tfc-build-train-step composes (StepForm.h describes the form
// they hand each other). Each takes its options from the lists above, under
// the names --tfc-build-train-step and --tfc-train-pipeline give them.

def TfcStepGradientsPass : Pass<"tfc-step-gradients", "::mlir::ModuleOp"> {
  let summary = "Stage 1 of a training step: @train_step returning the loss "
                "and the gradients of a loss function";
  let description = [{
    Adds `@train_step` after `@<function>` (default `@loss`, kept
    unchanged): the loss's `tfc.param` arguments, then its other arguments
    (an unnamed one gets `tfc.input = "arg<N>"`, N its index in the loss);
    the forward, then the backward of --tfc-autodiff; results the loss
    `{tfc.output = "loss"}` and one gradient `{tfc.grad = "P"}` per
    parameter P. The backward starts from one 0-d constant 1.0, the *loss
    seed*, marked `tfc.loss_seed`: the backward is exactly what depends on
    it, and the later stages scale the whole backward by scaling it
    (accumulation by 1/k, loss scaling by the scale). The function records
    the stages that built it in `tfc.step_stages`; each later stage checks
    it (stages run in this order: gradients, accumulate, loss-scaling,
    clip, optimizer; each at most once) and --tfc-step-optimizer, the last,
    removes the record and the seed mark.

    Errors: everything --tfc-autodiff rejects; a loss that is not one
    block returning one 0-d float tensor; no `tfc.param` argument; an
    existing symbol @train_step.
  }];
  let dependentDialects = ["::mlir::tfc::TfcDialect"];
  let options = TfcStepGradientsOptions;
}

def TfcStepAccumulatePass : Pass<"tfc-step-accumulate", "::mlir::ModuleOp"> {
  let summary = "Stage 2 of a training step: split @train_step into "
                "@accumulate_step and @apply_step (gradient accumulation)";
  let description = [{
    With `accumulate-steps` = k > 1, replaces the `@train_step` of
    --tfc-step-gradients by two functions (torch's recipe: `(loss /
    k).backward()` per micro-batch, one `optimizer.step()` and
    `zero_grad()` after k of them):

    - `@accumulate_step(params, accumulators, batch...)`: the forward and
      the backward with the loss seed divided by k; every gradient is
      added in f32 to its accumulator `{tfc.state = "P.grad_accum"}` (f32,
      P's shape). Results: the plain micro-batch loss and one `{tfc.update
      = "P.grad_accum"}` per parameter.
    - `@apply_step(params, accumulators)`: returns the accumulators as the
      gradients `{tfc.grad = "P"}` for the later stages, and every
      accumulator reset to zero `{tfc.update = "P.grad_accum"}` (also on a
      step the loss scaler skips: torch zero_grad()s after every attempt).

    `accumulate-steps=1` leaves the module unchanged. Errors: k < 1; no
    @train_step of --tfc-step-gradients or a later stage already ran on
    it; a symbol @accumulate_step or @apply_step exists; a loss argument
    named P.grad_accum.
  }];
  let dependentDialects = ["::mlir::tfc::TfcDialect"];
  let options = TfcStepAccumulateOptions;
}

def TfcStepLossScalingPass
    : Pass<"tfc-step-loss-scaling", "::mlir::ModuleOp"> {
  let summary = "Stage 3 of a training step: dynamic loss scaling with "
                "torch.cuda.amp.GradScaler's semantics";
  let description = [{
    On every step function of the earlier stages: adds the state
    `{tfc.state = "loss_scale"}` (0-d f32; a stored 0, the zero-filled
    state before the first step, reads as `init-scale`) and multiplies the
    loss seed by the scale, so the backward computes scaled gradients
    (`scaler.scale(loss).backward()`). Where the function returns
    gradients (@train_step, @apply_step) it also multiplies each by the f32
    reciprocal of the scale after checking all of them for inf/NaN in the
    same pass (`scaler.unscale_`), returns the 0-d i1 `{tfc.output =
    "found_inf"}`, adds `{tfc.state = "growth_tracker"}` (0-d i64) and
    returns the next scale and tracker as updates: on overflow the scale
    times `backoff-factor` and the tracker reset, else the tracker counts
    up and at `growth-interval` the scale is multiplied by `growth-factor`
    and the tracker reset; `min-scale` / `max-scale` (> 0) clamp the scale
    (not in GradScaler; 0 leaves that side unbounded). --tfc-step-optimizer
    then keeps every parameter and state on a step with found_inf
    (`scaler.step` skips `optimizer.step()`). @accumulate_step reads the
    scale and never changes it, as only `scaler.update()` does.

    Errors: an option out of range (a growth factor <= 1, a backoff factor
    outside (0, 1), growth-interval < 1, init-scale <= 0, min-scale /
    max-scale negative or not around init-scale); no step function, or one
    on which clip or optimizer already ran; a loss argument named
    loss_scale or growth_tracker.
  }];
  let dependentDialects = ["::mlir::tfc::TfcDialect"];
  let options = TfcStepLossScalingOptions;
}

def TfcStepClipPass : Pass<"tfc-step-clip", "::mlir::ModuleOp"> {
  let summary = "Stage 4 of a training step: gradient clipping";
  let description = [{
    Clips the gradients a step function returns (`{tfc.grad}` results):
    with `clip-grad-value` > 0 each element is clamped to [-v, v], like
    `torch.nn.utils.clip_grad_value_(clip_value=v)`; then with
    `max-grad-norm` > 0 like `torch.nn.utils.clip_grad_norm_(max_norm)`:
    total = sqrt(sum of squares of all gradients, in f32), every gradient
    times min(max_norm / (total + 1e-6), 1). After --tfc-step-loss-scaling,
    so it sees unscaled gradients (a NaN stays NaN, and the scaler's skip
    decides). Both 0 leave the module unchanged.

    Errors: a negative or non-finite max-grad-norm or clip-grad-value; no
    step function returning gradients, or the optimizer stage already ran.
  }];
  let dependentDialects = ["::mlir::tfc::TfcDialect"];
  let options = TfcStepClipOptions;
}

def TfcStepOptimizerPass : Pass<"tfc-step-optimizer", "::mlir::ModuleOp"> {
  let summary = "Stage 5 of a training step: the optimizer update of every "
                "parameter and the learning-rate schedule";
  let description = [{
    Replaces the gradients a step function returns by one update per
    parameter by the optimizer's rule (OptimizerRule.h; the semantics of
    each are those --tfc-build-train-step documents): adds each
    parameter's state arguments after the parameters (and accumulators),
    `{tfc.state = "step"}` (0-d i64), and the schedule's inputs (`lr`,
    and for the warmup schedules `min_lr`, `warmup_steps`, `total_steps`)
    before the batch; results `{tfc.update = "X"}` for every parameter,
    state and the step, and `{tfc.output = "applied_lr"}` for a warmup
    schedule. Where the function returns `found_inf` (loss scaling) each of
    these updates keeps the old value on overflow, the step count
    included. Completes the step: removes the `tfc.step_stages` record and
    the `tfc.loss_seed` mark from every step function.

    Errors: an unknown optimizer or an option out of range (as
    --tfc-build-train-step); no step function returning gradients; a loss
    argument named like a state or input the stage adds.
  }];
  let dependentDialects = ["::mlir::tfc::TfcDialect"];
  let options = TfcStepOptimizerOptions;
}

def TfcRecomputePass : Pass<"tfc-recompute", "::mlir::ModuleOp"> {
  let summary = "Recompute cheap forward values in the backward instead of "
                "saving them (activation checkpointing)";
  let description = [{
    Runs on the step functions `--tfc-build-train-step` built. The forward
    is what the `loss` output depends on; a forward value the backward (or
    anything after the forward) reads is *saved*: it stays alive, in the
    arena, from the forward to its last backward use. With `mode=cheap` the
    pass chooses, as a minimum cut over the forward graph (PyTorch
    Inductor's min-cut partitioner), the cheapest set of values to save,
    counted in bytes, from which the backward can recompute everything else
    it reads with cheap ops only: pointwise ops, views (reshape, transpose,
    slice, pad, concat, broadcast_to), dropout (its Philox mask is a
    function of seed and position) and the normalizations layer_norm and
    rms_norm. GEMMs, attention, embeddings, reductions, softmax and losses
    are never recomputed: their outputs are saved when the backward needs
    them. Each recomputed op is cloned right before its first backward
    reader (its clones' inputs recomputed the same way, once each), where
    fusion joins it to the backward kernel that reads it. The values are
    bit for bit those of the forward (same ops, same inputs).

    With `mode=blocks` only each layer's input is saved and everything the
    layer computes, GEMMs and attention included, is recomputed once for
    that layer's backward. Layers come from the layer index in the
    parameters' state-dict names (the first all-digit component: `h.3.`,
    `layers.3.`, `encoder.layer.3.`), or, when the model marks its blocks
    with `tfc.checkpoint` (the module attribute `tfc.checkpoint_blocks`
    that `--tfc-inline-checkpoints` leaves), from those blocks alone: a
    parameter a checkpoint takes belongs to its block. An op reading a
    parameter of no layer (an embedding, a final norm, a tied head) is
    outside any layer and follows the cheap policy.

    Clones carry `tfc.recomputed`, and fusion merges them only into kernels
    after them (merging one into a forward producer would keep it alive as
    if it were saved). `TFC_LOG=debug` prints what is saved and what is
    recomputed. Every mode records on each step function the bytes of the
    forward values the backward then reads (`tfc.saved_activation_bytes`;
    reshapes, views of their operand, and the returned loss not counted),
    which the lowering carries to the artifact's manifest and tfc-train's
    memory report shows; `mode=none` changes nothing else.

    Example: a GELU between two linear layers. Saved without recompute: the
    GELU input h (its VJP reads it) and its output g (the second GEMM's
    weight gradient reads it); with mode=cheap only h is saved and g =
    gelu(h) is recomputed where the weight gradient is computed.
  }];
  let dependentDialects = ["::mlir::tfc::TfcDialect"];
  let options = [
    Option<"mode", "mode", "std::string", /*default=*/"\"cheap\"",
           "none (save everything the backward reads), cheap (recompute "
           "pointwise ops, views and normalizations from a minimum-byte set "
           "of saved values) or blocks (save each layer's input, recompute "
           "the layer)">,
    Option<"function", "function", "std::string",
           /*default=*/"\"train_step,accumulate_step\"",
           "Comma-separated step functions (those missing are skipped)">,
  ];
}

def TfcInlineCheckpointsPass
    : Pass<"tfc-inline-checkpoints", "::mlir::ModuleOp"> {
  let summary = "Dissolve tfc.checkpoint regions, recording the blocks they "
                "mark";
  let description = [{
    Replaces every `tfc.checkpoint` by the ops of its body (its inputs for
    the body's arguments, the yielded values for its results), so that the
    other passes see plain ops, and records the blocks in the module
    attribute `tfc.checkpoint_blocks`: a dictionary from the name of each
    `tfc.param` argument a checkpoint takes as an input to the index of that
    checkpoint (0, 1, ... in the order the checkpoints appear in each
    function). A parameter taken by several checkpoints, or also read
    outside any, gets -1 (no block, like an embedding tied to the head).
    `--tfc-recompute=mode=blocks` then forms blocks from these indices
    instead of the layer numbers of the parameter names. A module without
    checkpoints is left unchanged. Both pipelines run this pass first.
  }];
  let dependentDialects = ["::mlir::tfc::TfcDialect"];
}

def TfcOptimizerInBackwardPass
    : Pass<"tfc-optimizer-in-backward", "::mlir::ModuleOp"> {
  let summary = "Update each parameter as soon as its gradient is complete";
  let description = [{
    Runs on `@train_step` after `--tfc-build-train-step` (and
    `--tfc-weight-copies`). Moves each optimizer update (tfc.adamw, adam,
    sgd, adamw8bit) to right after the last op it must follow: the one
    that completes its gradient, and the last reader of the old value of
    its parameter and state (the update writes them in place). The per-step
    scalars the updates read (the step counter plus one, the learning rate
    of the schedule) depend on state and inputs alone and move to the top.
    A weight copy of the new parameter (`--tfc-weight-copies`) moves to
    right after the update and the last reader of the old copy. So a
    gradient dies at its update and no full set of gradients is ever live:
    the arena holds the gradients of about one layer at a time. The
    function gets `tfc.optimizer_in_backward`, and fusion then leaves each
    update in its own launch (one launch over all of them would move every
    update back to the end).

    The math is unchanged: the step computes bit for bit the values of the
    step without the pass. Incompatible with what needs every gradient
    before any update (an error names it): global-norm clipping, dynamic
    loss scaling (the skip decision), gradient accumulation, and adafactor
    (its update is plain ops across the gradients).
  }];
  let dependentDialects = ["::mlir::tfc::TfcDialect"];
}

#endif // TFC_PASSES_TRAINING_PASSES_TD
