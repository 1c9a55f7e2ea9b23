func.func @constants_cloned(%x: tensor<8xf32>) -> tensor<8xf32> {
  %two = tfc.constant dense<2.0> : tensor<f32>
  %0 = tfc.mul %x, %two : tensor<8xf32>, tensor<f32>
  %1 = tfc.add %0, %two : tensor<8xf32>, tensor<f32>
  return %1 : tensor<8xf32>
}
