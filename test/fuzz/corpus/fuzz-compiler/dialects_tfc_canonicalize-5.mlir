func.func @mul_by_one(%x: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  %one = tfc.constant dense<1.0> : tensor<f32>
  %0 = tfc.mul %x, %one : tensor<4x8xf32>, tensor<f32>
  %1 = tfc.mul %one, %x : tensor<f32>, tensor<4x8xf32>
  return %0, %1 : tensor<4x8xf32>, tensor<4x8xf32>
}
