func.func @mul_by_two(%x: tensor<4xf32>) -> tensor<4xf32> {
  %two = tfc.constant dense<2.0> : tensor<f32>
  %0 = tfc.mul %x, %two : tensor<4xf32>, tensor<f32>
  return %0 : tensor<4xf32>
}
