func.func @loss(%w: tensor<20x12xf32> {tfc.param = "w"},
                %x: tensor<30x12xf32> {tfc.input = "x"},
                %y: tensor<30xi64> {tfc.input = "y"}) -> tensor<f32> {
  %h = tfc.matmul %x, %w transpose_b : tensor<30x12xf32>, tensor<20x12xf32> -> tensor<30x20xf32>
  %l = tfc.cross_entropy %h, %y : tensor<30x20xf32>, tensor<30xi64> -> tensor<f32>
  return %l : tensor<f32>
}
