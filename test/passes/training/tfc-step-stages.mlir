// RUN: tfc-opt %s --tfc-step-gradients | FileCheck %s --check-prefix=GRAD
// RUN: tfc-opt %s --tfc-step-gradients --tfc-step-accumulate=accumulate-steps=4 | FileCheck %s --check-prefix=ACCUM
// RUN: tfc-opt %s --tfc-step-gradients '--tfc-step-loss-scaling=init-scale=1024 growth-interval=7' | FileCheck %s --check-prefix=SCALE
// RUN: tfc-opt %s --tfc-step-gradients --tfc-step-clip=max-grad-norm=2 | FileCheck %s --check-prefix=CLIP
// RUN: tfc-opt %s --tfc-step-gradients --tfc-step-clip=clip-grad-value=0.25 | FileCheck %s --check-prefix=CLIPV
// RUN: tfc-opt %s --tfc-step-gradients '--tfc-step-optimizer=optimizer=sgd schedule=warmup-linear' | FileCheck %s --check-prefix=OPT
// RUN: tfc-opt %s --tfc-step-gradients --tfc-step-accumulate=accumulate-steps=3 --tfc-step-loss-scaling | FileCheck %s --check-prefix=TWO

// The five stages of a training step, each run alone from tfc-opt on a
// linear layer with a squared-error loss (the unnamed target becomes input
// "arg3"), and composed by hand: the same functions as
// --tfc-build-train-step with the same options, text for text.
// RUN: tfc-opt %s --tfc-step-gradients --tfc-step-accumulate=accumulate-steps=2 '--tfc-step-loss-scaling=init-scale=512 max-scale=4096' --tfc-step-clip=max-grad-norm=1.5 '--tfc-step-optimizer=optimizer=adam schedule=warmup-cosine' > %t.staged
// RUN: tfc-opt %s '--tfc-build-train-step=accumulate-steps=2 loss-scaling=true init-scale=512 max-scale=4096 max-grad-norm=1.5 optimizer=adam schedule=warmup-cosine' > %t.one
// RUN: diff %t.staged %t.one

func.func @loss(%w: tensor<4x8xf32> {tfc.param = "w"}, %b: tensor<4xf32> {tfc.param = "b"},
                %x: tensor<2x8xf32> {tfc.input = "x"}, %y: tensor<2x4xf32>) -> tensor<f32> {
  %h = tfc.matmul %x, %w transpose_b : tensor<2x8xf32>, tensor<4x8xf32> -> tensor<2x4xf32>
  %hb = tfc.add %h, %b : tensor<2x4xf32>, tensor<4xf32>
  %d = tfc.sub %hb, %y : tensor<2x4xf32>, tensor<2x4xf32>
  %sq = tfc.mul %d, %d : tensor<2x4xf32>, tensor<2x4xf32>
  %l = tfc.reduce_mean %sq dims [0, 1] : tensor<2x4xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// Gradients: parameters first, then the batch; the loss and one tfc.grad
// result per parameter; the backward starts from the marked seed; the
// function records the stage.
// GRAD-LABEL: func.func @train_step
// GRAD-SAME: (%{{.*}}: tensor<4x8xf32> {tfc.param = "w"}, %{{.*}}: tensor<4xf32> {tfc.param = "b"}, %[[X:.*]]: tensor<2x8xf32> {tfc.input = "x"}, %{{.*}}: tensor<2x4xf32> {tfc.input = "arg3"})
// GRAD-SAME: -> (tensor<f32> {tfc.output = "loss"}, tensor<4x8xf32> {tfc.grad = "w"}, tensor<4xf32> {tfc.grad = "b"})
// GRAD-SAME: attributes {tfc.step_stages = ["gradients"]}
// GRAD: %[[LOSS:.*]] = tfc.reduce_mean
// GRAD: %[[SEED:.*]] = tfc.constant dense<1.000000e+00> : tensor<f32> {tfc.loss_seed}
// GRAD: %[[GB:.*]] = tfc.reduce_sum %{{.*}} dims [0]
// GRAD: %[[GW:.*]] = tfc.matmul %{{.*}}, %[[X]] transpose_a
// GRAD: return %[[LOSS]], %[[GW]], %[[GB]]

// Accumulate: @accumulate_step divides the seed by k and adds each gradient
// to its f32 accumulator (after the parameters); @apply_step hands the
// accumulators on as the gradients and zeroes them.
// ACCUM-LABEL: func.func @accumulate_step
// ACCUM-SAME: (%{{.*}}: tensor<4x8xf32> {tfc.param = "w"}, %{{.*}}: tensor<4xf32> {tfc.param = "b"}, %[[AW:.*]]: tensor<4x8xf32> {tfc.state = "w.grad_accum"}, %[[AB:.*]]: tensor<4xf32> {tfc.state = "b.grad_accum"}, %{{.*}}: tensor<2x8xf32> {tfc.input = "x"}
// ACCUM-SAME: -> (tensor<f32> {tfc.output = "loss"}, tensor<4x8xf32> {tfc.update = "w.grad_accum"}, tensor<4xf32> {tfc.update = "b.grad_accum"})
// ACCUM-SAME: attributes {tfc.step_stages = ["gradients", "accumulate"]}
// ACCUM: %[[SEED:.*]] = tfc.constant dense<1.000000e+00> : tensor<f32> {tfc.loss_seed}
// ACCUM: %[[K:.*]] = tfc.constant dense<4.000000e+00> : tensor<f32>
// ACCUM: %[[CT:.*]] = tfc.div %[[SEED]], %[[K]]
// ACCUM: tfc.mul %[[CT]], %{{.*}}
// ACCUM: %[[NW:.*]] = tfc.add %[[AW]], %{{.*}} : tensor<4x8xf32>, tensor<4x8xf32>
// ACCUM: %[[NB:.*]] = tfc.add %[[AB]], %{{.*}} : tensor<4xf32>, tensor<4xf32>
// ACCUM: return %{{.*}}, %[[NW]], %[[NB]]
// ACCUM-LABEL: func.func @apply_step
// ACCUM-SAME: (%{{.*}}: tensor<4x8xf32> {tfc.param = "w"}, %{{.*}}: tensor<4xf32> {tfc.param = "b"}, %[[AW:.*]]: tensor<4x8xf32> {tfc.state = "w.grad_accum"}, %[[AB:.*]]: tensor<4xf32> {tfc.state = "b.grad_accum"})
// ACCUM-SAME: -> (tensor<4x8xf32> {tfc.grad = "w"}, tensor<4xf32> {tfc.grad = "b"}, tensor<4x8xf32> {tfc.update = "w.grad_accum"}, tensor<4xf32> {tfc.update = "b.grad_accum"})
// ACCUM: return %[[AW]], %[[AB]], %{{.*}}, %{{.*}} :

// Loss scaling: the scale (init-scale while the state is 0) multiplies the
// seed; the gradients are checked and unscaled but still returned as
// gradients; the next scale, tracker and found_inf are new results.
// SCALE-LABEL: func.func @train_step
// SCALE-SAME: %{{.*}}: tensor<f32> {tfc.state = "loss_scale"}, %[[TRACK:.*]]: tensor<i64> {tfc.state = "growth_tracker"}, %{{.*}}: tensor<2x8xf32> {tfc.input = "x"}
// SCALE-SAME: -> (tensor<f32> {tfc.output = "loss"}, tensor<4x8xf32> {tfc.grad = "w"}, tensor<4xf32> {tfc.grad = "b"}, tensor<f32> {tfc.update = "loss_scale"}, tensor<i64> {tfc.update = "growth_tracker"}, tensor<i1> {tfc.output = "found_inf"})
// SCALE: %[[SEED:.*]] = tfc.constant dense<1.000000e+00> : tensor<f32> {tfc.loss_seed}
// SCALE: tfc.constant dense<1.024000e+03>
// SCALE: %[[SCALE:.*]] = tfc.select
// SCALE: %[[CT:.*]] = tfc.mul %[[SEED]], %[[SCALE]]
// SCALE: %[[INV:.*]] = tfc.div %{{.*}}, %[[SCALE]]
// SCALE: %[[UW:.*]] = tfc.mul %{{.*}}, %[[INV]] : tensor<4x8xf32>, tensor<f32>
// SCALE: %[[UB:.*]] = tfc.mul %{{.*}}, %[[INV]] : tensor<4xf32>, tensor<f32>
// SCALE: %[[INF:.*]] = tfc.compare ne
// SCALE: tfc.constant dense<7> : tensor<i64>
// SCALE: return %{{.*}}, %[[UW]], %[[UB]], %{{.*}}, %{{.*}}, %[[INF]] :

// Clip: one norm over the returned gradients; each is scaled by the
// clamped coefficient and stays a gradient result.
// CLIP-LABEL: func.func @train_step
// CLIP-SAME: attributes {tfc.step_stages = ["gradients", "clip"]}
// CLIP: %[[NORM:.*]] = tfc.sqrt
// CLIP: %[[COEF:.*]] = tfc.minimum
// CLIP: %[[CW:.*]] = tfc.mul %{{.*}}, %[[COEF]] : tensor<4x8xf32>, tensor<f32>
// CLIP: %[[CB:.*]] = tfc.mul %{{.*}}, %[[COEF]] : tensor<4xf32>, tensor<f32>
// CLIP: return %{{.*}}, %[[CW]], %[[CB]] :

// Clipping by value: each gradient element clamped to [-v, v]
// (torch.nn.utils.clip_grad_value_; NaN stays NaN), no norm.
// CLIPV-LABEL: func.func @train_step
// CLIPV: %[[GW:.*]] = tfc.matmul %{{.*}} transpose_a
// CLIPV: %[[HI:.*]] = tfc.constant dense<2.500000e-01> : tensor<f32>
// CLIPV: %[[LO:.*]] = tfc.constant dense<-2.500000e-01> : tensor<f32>
// CLIPV: %[[BELOW:.*]] = tfc.compare lt, %[[GW]], %[[LO]]
// CLIPV: %[[UP:.*]] = tfc.select %[[BELOW]], %[[LO]], %[[GW]]
// CLIPV: %[[ABOVE:.*]] = tfc.compare gt, %[[GW]], %[[HI]]
// CLIPV: %[[CW:.*]] = tfc.select %[[ABOVE]], %[[HI]], %[[UP]]
// CLIPV-NOT: tfc.sqrt
// CLIPV: return %{{.*}}, %[[CW]], %{{.*}} :

// Optimizer: the state after the parameters, the step, the schedule's inputs
// before the batch; updates for every parameter, state and the step, the
// applied rate of the warmup schedule; the step is complete (no record, no
// seed mark).
// OPT-LABEL: func.func @train_step
// OPT-SAME: %{{.*}}: tensor<i64> {tfc.state = "step"}, %{{.*}}: tensor<f32> {tfc.input = "lr"}, %{{.*}}: tensor<f32> {tfc.input = "min_lr"}, %{{.*}}: tensor<i64> {tfc.input = "warmup_steps"}, %{{.*}}: tensor<i64> {tfc.input = "total_steps"}, %{{.*}}: tensor<2x8xf32> {tfc.input = "x"}
// OPT-SAME: -> (tensor<f32> {tfc.output = "loss"}, tensor<4x8xf32> {tfc.update = "w"}, tensor<4xf32> {tfc.update = "b"}, tensor<i64> {tfc.update = "step"}, tensor<f32> {tfc.output = "applied_lr"})
// OPT-NOT: tfc.step_stages
// OPT-NOT: tfc.loss_seed
// OPT: tfc.sgd
// OPT: tfc.sgd

// Two stages that scale the backward: the later one's factor sits next to
// the seed, so the cotangent is (1 * scale) / k, as torch's
// scaler.scale(loss / k).backward() computes it.
// TWO-LABEL: func.func @accumulate_step
// TWO: %[[SEED:.*]] = tfc.constant dense<1.000000e+00> : tensor<f32> {tfc.loss_seed}
// TWO: %[[S:.*]] = tfc.select
// TWO: %[[K:.*]] = tfc.constant dense<3.000000e+00>
// TWO: %[[SCALED:.*]] = tfc.mul %[[SEED]], %[[S]]
// TWO: tfc.div %[[SCALED]], %[[K]]
