func.func @transpose_kept(%x: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %0 = tfc.transpose %x, [1, 0] : tensor<4x4xf32> -> tensor<4x4xf32>
  return %0 : tensor<4x4xf32>
}
