func.func @transpose_range(%x: tensor<4x8xf32>) -> tensor<8x4xf32> {
  %0 = tfc.transpose %x, [2, 0] : tensor<4x8xf32> -> tensor<8x4xf32>
  return %0 : tensor<8x4xf32>
}
