func.func @scale(%x: tensor<4xf32> {tfc.input = "x"}) -> tensor<4xf32> {
  %two = tfc.constant dense<2.0> : tensor<f32>
  %y = tfc.mul %x, %two : tensor<4xf32>, tensor<f32>
  return %y : tensor<4xf32>
}
