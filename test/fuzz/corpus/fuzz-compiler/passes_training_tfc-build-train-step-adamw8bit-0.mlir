func.func @loss(%w: tensor<64x128xf32> {tfc.param = "w"}, %b: tensor<64xf32> {tfc.param = "b"},
                %x: tensor<2x128xf32> {tfc.input = "x"}, %y: tensor<2x64xf32>) -> tensor<f32> {
  %mm = tfc.matmul %x, %w transpose_b : tensor<2x128xf32>, tensor<64x128xf32> -> tensor<2x64xf32>
  %z = tfc.add %mm, %b : tensor<2x64xf32>, tensor<64xf32>
  %d = tfc.sub %z, %y : tensor<2x64xf32>, tensor<2x64xf32>
  %sq = tfc.mul %d, %d : tensor<2x64xf32>, tensor<2x64xf32>
  %s = tfc.reduce_mean %sq dims [0, 1] : tensor<2x64xf32> -> tensor<f32>
  return %s : tensor<f32>
}
