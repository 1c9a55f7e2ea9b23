func.func @loss(%w: tensor<4x8xf32> {tfc.param = "w"}, %b: tensor<8xf32> {tfc.param = "b"}, %x: tensor<2x3x8xf32> {tfc.input = "x"}) -> tensor<f32> {
  %y = tfc.add %x, %b : tensor<2x3x8xf32>, tensor<8xf32>
  %z = tfc.matmul %y, %w transpose_b : tensor<2x3x8xf32>, tensor<4x8xf32> -> tensor<2x3x4xf32>
  %s = tfc.reduce_sum %z dims [0, 1, 2] : tensor<2x3x4xf32> -> tensor<f32>
  return %s : tensor<f32>
}
