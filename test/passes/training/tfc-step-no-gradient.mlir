// RUN: tfc-opt %s --tfc-step-gradients | FileCheck %s --check-prefix=GRAD
// RUN: tfc-opt %s '--tfc-build-train-step=optimizer=sgd momentum=0.9 weight-decay=0.1 max-grad-norm=1' | FileCheck %s --check-prefix=STEP

// A parameter no gradient reaches returns no gradient: "unused" is never
// read, "teacher" only through tfc.stop_gradient (a head read under
// torch.no_grad). torch leaves their .grad None, and its optimizers,
// clip_grad_norm_ and GradScaler skip them, so the step does too: they stay
// tfc.param arguments with no state, no weight decay and no update.
// GRAD-LABEL: func.func @train_step
// GRAD-SAME: (%{{.*}}: tensor<4x4xf32> {tfc.param = "w"}, %{{.*}}: tensor<4x4xf32> {tfc.param = "unused"}, %{{.*}}: tensor<4x4xf32> {tfc.param = "teacher"}, %{{.*}}: tensor<2x4xf32> {tfc.input = "x"})
// GRAD-SAME: -> (tensor<f32> {tfc.output = "loss"}, tensor<4x4xf32> {tfc.grad = "w"})
// STEP-LABEL: func.func @train_step
// STEP-SAME: %{{.*}}: tensor<4x4xf32> {tfc.param = "unused"}, %{{.*}}: tensor<4x4xf32> {tfc.param = "teacher"}, %{{.*}}: tensor<4x4xf32> {tfc.state = "w.momentum_buffer"}, %{{.*}}: tensor<i64> {tfc.state = "step"}
// STEP-SAME: -> (tensor<f32> {tfc.output = "loss"}, tensor<4x4xf32> {tfc.update = "w"}, tensor<4x4xf32> {tfc.update = "w.momentum_buffer"}, tensor<i64> {tfc.update = "step"})
func.func @loss(%w: tensor<4x4xf32> {tfc.param = "w"}, %u: tensor<4x4xf32> {tfc.param = "unused"},
                %t: tensor<4x4xf32> {tfc.param = "teacher"}, %x: tensor<2x4xf32> {tfc.input = "x"}) -> tensor<f32> {
  %y = tfc.matmul %x, %w : tensor<2x4xf32>, tensor<4x4xf32> -> tensor<2x4xf32>
  %ts = tfc.stop_gradient %t : tensor<4x4xf32>
  %z = tfc.matmul %y, %ts : tensor<2x4xf32>, tensor<4x4xf32> -> tensor<2x4xf32>
  %s = tfc.reduce_sum %z dims [0, 1] : tensor<2x4xf32> -> tensor<f32>
  return %s : tensor<f32>
}

