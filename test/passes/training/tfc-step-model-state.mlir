// RUN: tfc-opt %s --tfc-step-gradients | FileCheck %s --check-prefix=GRAD
// RUN: tfc-opt %s --tfc-step-gradients --tfc-step-accumulate=accumulate-steps=2 | FileCheck %s --check-prefix=ACCUM
// RUN: tfc-opt %s --tfc-step-gradients --tfc-step-loss-scaling --tfc-step-optimizer | FileCheck %s --check-prefix=SCALE
// RUN: tfc-opt %s --tfc-autodiff | FileCheck %s --check-prefix=AD
// RUN: tfc-opt %s '--tfc-train-pipeline=precision=bf16 recompute=blocks optimizer-in-backward=true' | FileCheck %s --check-prefix=PIPE

// A loss that also returns the new value of model state, as the frontend
// imports a training-mode batch norm: the running mean is a tfc.state
// argument and its update ({tfc.update}) a result after the loss.
func.func @loss(%w: tensor<4xf32> {tfc.param = "w"}, %x: tensor<2x4xf32> {tfc.input = "x"},
                %rm: tensor<4xf32> {tfc.state = "bn.running_mean"})
    -> (tensor<f32>, tensor<4xf32> {tfc.update = "bn.running_mean"}) {
  %h = tfc.mul %x, %w : tensor<2x4xf32>, tensor<4xf32>
  %m = tfc.reduce_mean %h dims [0] : tensor<2x4xf32> -> tensor<4xf32>
  %k = tfc.constant dense<0.9> : tensor<f32>
  %kr = tfc.mul %rm, %k : tensor<4xf32>, tensor<f32>
  %c = tfc.constant dense<0.1> : tensor<f32>
  %cm = tfc.mul %m, %c : tensor<4xf32>, tensor<f32>
  %new = tfc.add %kr, %cm : tensor<4xf32>, tensor<4xf32>
  %sq = tfc.mul %h, %h : tensor<2x4xf32>, tensor<2x4xf32>
  %l = tfc.reduce_mean %sq dims [0, 1] : tensor<2x4xf32> -> tensor<f32>
  return %l, %new : tensor<f32>, tensor<4xf32>
}

// Gradients: the state argument stays tfc.state (not renamed an input) and
// goes after the parameters, before the batch; its update follows the
// gradients, returning the forward's value (not differentiated: the
// backward reads no state).
// GRAD-LABEL: func.func @train_step
// GRAD-SAME: (%{{.*}}: tensor<4xf32> {tfc.param = "w"}, %[[RM:.*]]: tensor<4xf32> {tfc.state = "bn.running_mean"}, %{{.*}}: tensor<2x4xf32> {tfc.input = "x"})
// GRAD-SAME: -> (tensor<f32> {tfc.output = "loss"}, tensor<4xf32> {tfc.grad = "w"}, tensor<4xf32> {tfc.update = "bn.running_mean"})
// GRAD: %[[KR:.*]] = tfc.mul %[[RM]], %{{.*}} : tensor<4xf32>, tensor<f32>
// GRAD: %[[NEW:.*]] = tfc.add %[[KR]], %{{.*}} : tensor<4xf32>, tensor<4xf32>
// GRAD: return %{{.*}}, %{{.*}}, %[[NEW]] :

// Accumulation: every micro-batch call (@accumulate_step) updates the state,
// as each of torch's forwards does; @apply_step does not touch it.
// ACCUM-LABEL: func.func @accumulate_step
// ACCUM-SAME: {tfc.state = "bn.running_mean"}
// ACCUM-SAME: -> (tensor<f32> {tfc.output = "loss"}, tensor<4xf32> {tfc.update = "bn.running_mean"}, tensor<4xf32> {tfc.update = "w.grad_accum"})
// ACCUM-LABEL: func.func @apply_step
// ACCUM-NOT: running_mean
// ACCUM: return

// Loss scaling: a step the scaler skips keeps the parameters, moments and
// counter (selects on found_inf), but the state update is the forward's
// value unselected, as torch's forward updates batch norm in a skipped step.
// SCALE-LABEL: func.func @train_step
// SCALE-SAME: %[[RM:[^:]*]]: tensor<4xf32> {tfc.state = "bn.running_mean"}
// SCALE-SAME: -> (tensor<f32> {tfc.output = "loss"}, tensor<4xf32> {tfc.update = "w"}, tensor<4xf32> {tfc.update = "bn.running_mean"}, tensor<4xf32> {tfc.update = "w.exp_avg"}
// SCALE: %[[KR:.*]] = tfc.mul %[[RM]], %{{.*}} : tensor<4xf32>, tensor<f32>
// SCALE: %[[NEW:.*]] = tfc.add %[[KR]], %{{.*}} : tensor<4xf32>, tensor<4xf32>
// SCALE: %[[W:.*]] = tfc.select %{{.*}}, %{{.*}}, %param_out
// SCALE: return %{{.*}}, %[[W]], %[[NEW]],

// --tfc-autodiff keeps the update, named, after the gradients.
// AD-LABEL: func.func @loss_grad
// AD-SAME: -> (tensor<f32> {tfc.output = "loss"}, tensor<4xf32> {tfc.output = "grad.w"}, tensor<4xf32> {tfc.update = "bn.running_mean"})

// The whole pipeline with bf16, block recompute and the optimizer in the
// backward: the state stays an f32 external the step writes in place.
// PIPE: tfcrt.external state "bn.running_mean" : memref<4xf32>
