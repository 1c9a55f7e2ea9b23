func.func @loss(%w: tensor<4xf32> {tfc.param = "w"}, %lr: tensor<4xf32> {tfc.input = "lr"}) -> tensor<f32> {
  %p = tfc.mul %w, %lr : tensor<4xf32>, tensor<4xf32>
  %s = tfc.reduce_sum %p dims [0] : tensor<4xf32> -> tensor<f32>
  return %s : tensor<f32>
}
