func.func @transpose_identity(%x: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %0 = tfc.transpose %x, [0, 1] : tensor<4x4xf32> -> tensor<4x4xf32>
  return %0 : tensor<4x4xf32>
}
