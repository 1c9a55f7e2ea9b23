func.func @loss(%w: tensor<4x8xf32> {tfc.param = "w"},
                %x: tensor<2x8xf32> {tfc.input = "x"},
                %y: tensor<2xi64> {tfc.input = "y"}) -> tensor<f32> {
  %h = tfc.matmul %x, %w transpose_b : tensor<2x8xf32>, tensor<4x8xf32> -> tensor<2x4xf32>
  %l = tfc.cross_entropy %h, %y : tensor<2x4xf32>, tensor<2xi64> -> tensor<f32>
  return %l : tensor<f32>
}
