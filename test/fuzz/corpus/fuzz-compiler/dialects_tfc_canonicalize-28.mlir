func.func @mul_ones_broadcast(%x: tensor<4xf32>) -> (tensor<2x4xf32>, tensor<3x4xf32>) {
  %ones = tfc.constant dense<1.0> : tensor<2x4xf32>
  %0 = tfc.mul %x, %ones : tensor<4xf32>, tensor<2x4xf32>
  %ones3 = tfc.constant dense<1.0> : tensor<3x1xf32>
  %1 = tfc.mul %ones3, %x : tensor<3x1xf32>, tensor<4xf32>
  return %0, %1 : tensor<2x4xf32>, tensor<3x4xf32>
}
