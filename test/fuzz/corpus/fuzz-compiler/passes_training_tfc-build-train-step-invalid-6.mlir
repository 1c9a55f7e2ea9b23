func.func @loss(%w: tensor<4xf32> {tfc.param = "w"}, %g: tensor<4xf32> {tfc.input = "w.grad_accum"}) -> tensor<f32> {
  %p = tfc.mul %w, %g : tensor<4xf32>, tensor<4xf32>
  %s = tfc.reduce_sum %p dims [0] : tensor<4xf32> -> tensor<f32>
  return %s : tensor<f32>
}
