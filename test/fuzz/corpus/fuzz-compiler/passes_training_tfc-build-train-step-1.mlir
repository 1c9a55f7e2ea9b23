func.func @loss(%w: tensor<3x4x8xf32> {tfc.param = "w"}, %x: tensor<3x4x8xf32> {tfc.input = "x"}) -> tensor<f32> {
  %p = tfc.mul %w, %x : tensor<3x4x8xf32>, tensor<3x4x8xf32>
  %s = tfc.reduce_sum %p dims [0, 1, 2] : tensor<3x4x8xf32> -> tensor<f32>
  return %s : tensor<f32>
}
