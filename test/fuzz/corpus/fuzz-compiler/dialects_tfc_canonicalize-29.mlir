func.func @mul_twos_kept(%x: tensor<4xf32>) -> tensor<2x4xf32> {
  %twos = tfc.constant dense<2.0> : tensor<2x4xf32>
  %0 = tfc.mul %x, %twos : tensor<4xf32>, tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}
