// An optimizer option given (not at its default) to an optimizer that does
// not read it would be silently ignored: --tfc-step-optimizer refuses it and
// names the optimizers that read it. The Adam family's betas, eps (not
// sgd's or adafactor's), momentum (sgd and rmsprop only), adamw8bit's
// block size and adafactor's own options.
// RUN: not tfc-opt %s '--tfc-build-train-step=optimizer=rmsprop beta1=0.5' 2>&1 | FileCheck %s --check-prefix=BETA1
// RUN: not tfc-opt %s '--tfc-build-train-step=optimizer=adagrad beta2=0.5' 2>&1 | FileCheck %s --check-prefix=BETA2
// RUN: not tfc-opt %s '--tfc-build-train-step=optimizer=adam momentum=0.9' 2>&1 | FileCheck %s --check-prefix=MOMENTUM
// RUN: not tfc-opt %s '--tfc-build-train-step=optimizer=sgd eps=0.1' 2>&1 | FileCheck %s --check-prefix=EPS
// RUN: not tfc-opt %s '--tfc-build-train-step=optimizer=radam block-size=64' 2>&1 | FileCheck %s --check-prefix=BLOCK
// RUN: not tfc-opt %s '--tfc-build-train-step=optimizer=adamw eps1=0.1' 2>&1 | FileCheck %s --check-prefix=EPS1
// RUN: tfc-opt %s '--tfc-build-train-step=optimizer=rmsprop momentum=0.9 eps=1e-6' | FileCheck %s --check-prefix=READ

// BETA1: --tfc-build-train-step: beta1 is an option of optimizer=adamw, adam, adamw8bit, adamax, nadam or radam only
// BETA2: --tfc-build-train-step: beta2 is an option of optimizer=adamw, adam, adamw8bit, adamax, nadam or radam only
// MOMENTUM: --tfc-build-train-step: momentum is an option of optimizer=sgd or rmsprop only
// EPS: --tfc-build-train-step: eps is an option of optimizer=adamw, adam, adamw8bit, rmsprop, adagrad, adamax, nadam or radam only
// BLOCK: --tfc-build-train-step: block-size is an option of optimizer=adamw8bit only
// EPS1: --tfc-build-train-step: eps1 is an option of optimizer=adafactor only
// Options the optimizer reads are taken.
// READ: tfc.state = "w.momentum_buffer"

func.func @loss(%w: tensor<4x8xf32> {tfc.param = "w"}, %x: tensor<2x8xf32> {tfc.input = "x"}) -> tensor<f32> {
  %mm = tfc.matmul %x, %w transpose_b : tensor<2x8xf32>, tensor<4x8xf32> -> tensor<2x4xf32>
  %s = tfc.reduce_sum %mm dims [0, 1] : tensor<2x4xf32> -> tensor<f32>
  return %s : tensor<f32>
}
