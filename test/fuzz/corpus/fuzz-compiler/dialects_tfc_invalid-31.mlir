func.func @transpose_length(%x: tensor<4x8x2xf32>) -> tensor<8x4x2xf32> {
  %0 = tfc.transpose %x, [1, 0] : tensor<4x8x2xf32> -> tensor<8x4x2xf32>
  return %0 : tensor<8x4x2xf32>
}
