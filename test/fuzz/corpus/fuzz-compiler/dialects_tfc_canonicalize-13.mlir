func.func @pow_one(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = tfc.pow %x, 1.0 : tensor<4xf32>
  return %0 : tensor<4xf32>
}
