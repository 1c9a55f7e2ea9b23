// RUN: tfc-opt %s --verify-diagnostics --tfc-step-gradients

// No gradient reaches any parameter (read only through stop_gradient):
// nothing to train, an error rather than a step that only decays weights.

// expected-error @+1 {{--tfc-step-gradients: no gradient reaches any tfc.param argument of @loss (the loss does not depend on them)}}
func.func @loss(%w: tensor<4xf32> {tfc.param = "w"}, %x: tensor<4xf32> {tfc.input = "x"}) -> tensor<f32> {
  %ws = tfc.stop_gradient %w : tensor<4xf32>
  %y = tfc.mul %x, %ws : tensor<4xf32>, tensor<4xf32>
  %l = tfc.reduce_sum %y dims [0] : tensor<4xf32> -> tensor<f32>
  return %l : tensor<f32>
}
