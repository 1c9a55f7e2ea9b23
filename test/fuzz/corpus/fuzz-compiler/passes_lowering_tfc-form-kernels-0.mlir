func.func @pointwise(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = tfc.mul %x, %x : tensor<4x8xf32>, tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}
