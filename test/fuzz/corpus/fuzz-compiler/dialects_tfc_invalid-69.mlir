func.func @mean_of_integers(%x: tensor<4x8xi32>) -> tensor<4xi32> {
  %0 = tfc.reduce_mean %x dims [1] : tensor<4x8xi32> -> tensor<4xi32>
  return %0 : tensor<4xi32>
}
