// RUN: tfc-opt %s --split-input-file --verify-diagnostics --tfc-step-gradients --tfc-step-clip=max-grad-norm=1 --tfc-step-loss-scaling
// RUN: not tfc-opt %s --tfc-step-optimizer 2>&1 | FileCheck %s --check-prefix=NOSTEP
// RUN: not tfc-opt %s --split-input-file --tfc-step-clip=max-grad-norm=-2 2>&1 | FileCheck %s --check-prefix=CLIP
// RUN: not tfc-opt %s --split-input-file --tfc-step-clip=clip-grad-value=-1 2>&1 | FileCheck %s --check-prefix=CLIPV
// RUN: not tfc-opt %s --split-input-file --tfc-step-accumulate=accumulate-steps=0 2>&1 | FileCheck %s --check-prefix=ACCUM
// RUN: not tfc-opt %s --split-input-file --tfc-step-optimizer=optimizer=lion 2>&1 | FileCheck %s --check-prefix=OPT

// Stages run in their order, each once: loss scaling after clipping would
// unscale clipped gradients, so it is refused and names the stage that ran.

// expected-error @+1 {{--tfc-step-loss-scaling: @train_step already went through --tfc-step-clip (the stages run in the order gradients, accumulate, loss-scaling, clip, optimizer, each at most once)}}
func.func @loss(%w: tensor<4xf32> {tfc.param = "w"}) -> tensor<f32> {
  %l = tfc.reduce_sum %w dims [0] : tensor<4xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// A stage with nothing to work on (here the optimizer before the gradients)
// says which stage builds a step.
// NOSTEP: error: --tfc-step-optimizer: no step function returning gradients to work on (--tfc-step-gradients builds one from a loss; --tfc-step-optimizer completes it)

// Each stage checks its own options.
// CLIP: error: --tfc-step-clip: max-grad-norm must be non-negative and finite (0: off)
// CLIPV: error: --tfc-step-clip: clip-grad-value must be non-negative and finite (0: off)
// ACCUM: error: --tfc-step-accumulate: accumulate-steps must be at least 1 (1: no accumulation)
// OPT: error: --tfc-step-optimizer: unknown optimizer 'lion'
