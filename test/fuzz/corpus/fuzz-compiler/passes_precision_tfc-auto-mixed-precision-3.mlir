func.func @weights_alone(%x: tensor<3x4xf32> {tfc.input = "x"},
                         %w: tensor<4x4xf32> {tfc.param = "w"},
                         %g: tensor<4xf32> {tfc.param = "g"}) -> tensor<3x4xf32> {
  %half = tfc.constant dense<0.5> : tensor<f32>
  %s = tfc.mul %g, %half : tensor<4xf32>, tensor<f32>
  %h = tfc.matmul %x, %w : tensor<3x4xf32>, tensor<4x4xf32> -> tensor<3x4xf32>
  %y = tfc.mul %h, %s : tensor<3x4xf32>, tensor<4xf32>
  return %y : tensor<3x4xf32>
}
