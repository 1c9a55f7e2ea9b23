// RUN: tfc-opt %s --split-input-file --tfc-build-train-step --verify-diagnostics
// RUN: not tfc-opt %s --split-input-file --tfc-build-train-step=optimizer=lion 2>&1 | FileCheck %s --check-prefix=OPT
// RUN: not tfc-opt %s --split-input-file '--tfc-build-train-step=optimizer=sgd nesterov=true' 2>&1 | FileCheck %s --check-prefix=NESTEROV
// RUN: not tfc-opt %s --split-input-file '--tfc-build-train-step=loss-scaling=true backoff-factor=1.5' 2>&1 | FileCheck %s --check-prefix=BACKOFF
// RUN: not tfc-opt %s --split-input-file '--tfc-build-train-step=max-grad-norm=-1' 2>&1 | FileCheck %s --check-prefix=CLIP
// RUN: not tfc-opt %s --split-input-file '--tfc-build-train-step=schedule=cosine' 2>&1 | FileCheck %s --check-prefix=SCHEDULE
// RUN: not tfc-opt %s --split-input-file '--tfc-build-train-step=loss-scaling=true min-scale=-1' 2>&1 | FileCheck %s --check-prefix=MINSCALE
// RUN: not tfc-opt %s --split-input-file '--tfc-build-train-step=loss-scaling=true max-scale=1024' 2>&1 | FileCheck %s --check-prefix=SCALERANGE
// RUN: not tfc-opt %s --split-input-file '--tfc-build-train-step=optimizer=adamw8bit block-size=100' 2>&1 | FileCheck %s --check-prefix=BLOCK
// RUN: not tfc-opt %s --split-input-file '--tfc-build-train-step=optimizer=adafactor beta2-decay=0.5' 2>&1 | FileCheck %s --check-prefix=BETA2DECAY
// RUN: not tfc-opt %s --split-input-file '--tfc-build-train-step=optimizer=adafactor eps1=-1' 2>&1 | FileCheck %s --check-prefix=EPS1
// RUN: not tfc-opt %s --split-input-file '--tfc-build-train-step=optimizer=adafactor eps2=-1e-3' 2>&1 | FileCheck %s --check-prefix=EPS2
// RUN: not tfc-opt %s --split-input-file '--tfc-build-train-step=optimizer=adafactor clip-threshold=0.5' 2>&1 | FileCheck %s --check-prefix=CLIPD
// RUN: not tfc-opt %s --split-input-file '--tfc-build-train-step=accumulate-steps=0' 2>&1 | FileCheck %s --check-prefix=ACCUMZERO
// RUN: not tfc-opt %s --split-input-file '--tfc-build-train-step=accumulate-steps=2' 2>&1 | FileCheck %s --check-prefix=ACCUM

// Errors of --tfc-build-train-step: one case per rule on the model, and one
// RUN line per option rule.

// OPT: --tfc-build-train-step: unknown optimizer 'lion' (expected adamw, adam, sgd, adafactor, adamw8bit, rmsprop, adagrad, adamax, nadam or radam)
// NESTEROV: --tfc-build-train-step: nesterov needs optimizer=sgd and momentum > 0
// BACKOFF: --tfc-build-train-step: backoff-factor must lie in (0, 1)
// CLIP: --tfc-build-train-step: max-grad-norm must be non-negative and finite (0: off)
// SCHEDULE: --tfc-build-train-step: unknown schedule 'cosine' (expected constant, warmup-cosine or warmup-linear)
// MINSCALE: --tfc-build-train-step: min-scale must be non-negative and finite (0: no floor)
// SCALERANGE: --tfc-build-train-step: init-scale must lie in [min-scale, max-scale]
// BLOCK: --tfc-build-train-step: block-size must be a power of two in [32, 1024], got 100
// BETA2DECAY: --tfc-build-train-step: beta2-decay must be finite and <= 0
// EPS1: --tfc-build-train-step: eps1 must be non-negative and finite (0: the dtype's epsilon)
// EPS2: --tfc-build-train-step: eps2 must be non-negative and finite
// CLIPD: --tfc-build-train-step: clip-threshold must be finite and >= 1
// ACCUMZERO: --tfc-build-train-step: accumulate-steps must be at least 1 (1: no accumulation)
// With accumulation the functions are @accumulate_step and @apply_step: an
// existing @apply_step and a loss argument named like an accumulator fail.
// ACCUM: error: --tfc-step-accumulate: the module already has a symbol @apply_step
// ACCUM: --tfc-step-accumulate: @accumulate_step already has an argument named 'w.grad_accum', a name the stage gives to an argument of its own (rename the loss's argument: the runtime binds by name)

// No tfc.param argument: nothing to train.
// expected-error @+1 {{--tfc-step-gradients: @loss has no argument marked tfc.param: nothing to train}}
func.func @loss(%x: tensor<4xf32> {tfc.input = "x"}) -> tensor<f32> {
  %s = tfc.reduce_sum %x dims [0] : tensor<4xf32> -> tensor<f32>
  return %s : tensor<f32>
}

// -----

// The loss must be a single 0-d float tensor.
// expected-error @+1 {{--tfc-step-gradients: @loss must return one scalar loss (a 0-d floating-point tensor), then only updates of model state ({tfc.update})}}
func.func @loss(%x: tensor<4xf32> {tfc.param = "x"}) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}

// -----

// A batch input may not take a name the train step uses ("lr").
// expected-error @+1 {{--tfc-step-optimizer: @train_step already has an argument named 'lr', a name the stage gives to an argument of its own (rename the loss's argument: the runtime binds by name)}}
func.func @loss(%w: tensor<4xf32> {tfc.param = "w"}, %lr: tensor<4xf32> {tfc.input = "lr"}) -> tensor<f32> {
  %p = tfc.mul %w, %lr : tensor<4xf32>, tensor<4xf32>
  %s = tfc.reduce_sum %p dims [0] : tensor<4xf32> -> tensor<f32>
  return %s : tensor<f32>
}

// -----

// @train_step exists already.
// expected-error @+1 {{--tfc-step-gradients: the module already has a symbol @train_step}}
func.func @loss(%w: tensor<4xf32> {tfc.param = "w"}) -> tensor<f32> {
  %s = tfc.reduce_sum %w dims [0] : tensor<4xf32> -> tensor<f32>
  return %s : tensor<f32>
}
func.func @train_step() {
  return
}

// -----

// A non-differentiable op on the path fails as in --tfc-autodiff.
func.func @loss(%x: tensor<4xf32> {tfc.param = "x"}) -> tensor<f32> {
  // expected-error @+1 {{'tfc.fusion' is not differentiable but lies on the path from a parameter to the loss}}
  %y = tfc.fusion pointwise (%a = %x : tensor<4xf32>) -> (tensor<4xf32>) {
    %e = tfc.exp %a : tensor<4xf32>
    tfc.yield %e : tensor<4xf32>
  }
  %s = tfc.reduce_sum %y dims [0] : tensor<4xf32> -> tensor<f32>
  return %s : tensor<f32>
}

// -----

// (The ACCUM cases: an existing @apply_step; without accumulation that is
// no conflict.)
func.func @loss(%w: tensor<4xf32> {tfc.param = "w"}) -> tensor<f32> {
  %s = tfc.reduce_sum %w dims [0] : tensor<4xf32> -> tensor<f32>
  return %s : tensor<f32>
}
func.func @apply_step() {
  return
}

// -----

// (A batch input named like w's accumulator, harmless without accumulation.)
func.func @loss(%w: tensor<4xf32> {tfc.param = "w"}, %g: tensor<4xf32> {tfc.input = "w.grad_accum"}) -> tensor<f32> {
  %p = tfc.mul %w, %g : tensor<4xf32>, tensor<4xf32>
  %s = tfc.reduce_sum %p dims [0] : tensor<4xf32> -> tensor<f32>
  return %s : tensor<f32>
}
