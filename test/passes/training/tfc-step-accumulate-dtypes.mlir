// RUN: tfc-opt %s --split-input-file --tfc-step-gradients --tfc-step-accumulate=accumulate-steps=2 | FileCheck %s
// RUN: tfc-opt %s --split-input-file '--tfc-train-pipeline=accumulate-steps=2 optimizer=sgd momentum=0.9' -o /dev/null

// Gradient accumulation with parameters that are not f32: a bf16
// parameter's gradient is summed into an f32 accumulator and handed to the
// optimizer in bf16 (one rounding at the end, the gradient result keeps its
// parameter's type); an f64 parameter's accumulator is f64. The accumulator
// used to be f32 whatever the parameter's type, so @apply_step returned an f32
// gradient of a bf16 or f64 parameter, a verifier error.
// CHECK-LABEL: func.func @accumulate_step
// CHECK-SAME: %[[AW:[^:]*]]: tensor<4x8xf32> {tfc.state = "w.grad_accum"}
// CHECK-SAME: -> (tensor<f32> {tfc.output = "loss"}, tensor<4x8xf32> {tfc.update = "w.grad_accum"})
// CHECK: %[[G:.*]] = tfc.convert %{{.*}} : tensor<4x8xbf16> -> tensor<4x8xf32>
// CHECK: tfc.add %[[AW]], %[[G]] : tensor<4x8xf32>, tensor<4x8xf32>
// CHECK-LABEL: func.func @apply_step
// CHECK-SAME: (%{{.*}}: tensor<4x8xbf16> {tfc.param = "w"}, %[[AW:.*]]: tensor<4x8xf32> {tfc.state = "w.grad_accum"})
// CHECK-SAME: -> (tensor<4x8xbf16> {tfc.grad = "w"}, tensor<4x8xf32> {tfc.update = "w.grad_accum"})
// CHECK: %[[G:.*]] = tfc.convert %[[AW]] : tensor<4x8xf32> -> tensor<4x8xbf16>
// CHECK: return %[[G]], %{{.*}} :
func.func @loss(%w: tensor<4x8xbf16> {tfc.param = "w"}, %x: tensor<2x8xbf16> {tfc.input = "x"})
    -> tensor<f32> {
  %h = tfc.matmul %x, %w transpose_b : tensor<2x8xbf16>, tensor<4x8xbf16> -> tensor<2x4xbf16>
  %f = tfc.convert %h : tensor<2x4xbf16> -> tensor<2x4xf32>
  %sq = tfc.mul %f, %f : tensor<2x4xf32>, tensor<2x4xf32>
  %l = tfc.reduce_mean %sq dims [0, 1] : tensor<2x4xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// CHECK-LABEL: func.func @accumulate_step
// CHECK-SAME: %[[AW:[^:]*]]: tensor<4x8xf64> {tfc.state = "w.grad_accum"}
// CHECK-SAME: -> (tensor<f64> {tfc.output = "loss"}, tensor<4x8xf64> {tfc.update = "w.grad_accum"})
// CHECK-NOT: tfc.convert
// CHECK: tfc.add %[[AW]], %{{.*}} : tensor<4x8xf64>, tensor<4x8xf64>
// CHECK-LABEL: func.func @apply_step
// CHECK-SAME: (%{{.*}}: tensor<4x8xf64> {tfc.param = "w"}, %[[AW:.*]]: tensor<4x8xf64> {tfc.state = "w.grad_accum"})
// CHECK-SAME: -> (tensor<4x8xf64> {tfc.grad = "w"}, tensor<4x8xf64> {tfc.update = "w.grad_accum"})
// CHECK: return %[[AW]], %{{.*}} :
func.func @loss(%w: tensor<4x8xf64> {tfc.param = "w"}, %x: tensor<2x8xf64> {tfc.input = "x"})
    -> tensor<f64> {
  %h = tfc.matmul %x, %w transpose_b : tensor<2x8xf64>, tensor<4x8xf64> -> tensor<2x4xf64>
  %sq = tfc.mul %h, %h : tensor<2x4xf64>, tensor<2x4xf64>
  %l = tfc.reduce_mean %sq dims [0, 1] : tensor<2x4xf64> -> tensor<f64>
  return %l : tensor<f64>
}
