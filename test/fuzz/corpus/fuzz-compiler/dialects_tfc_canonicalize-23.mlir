func.func @transpose_splat() -> tensor<8x4xf32> {
  %c = tfc.constant dense<2.5> : tensor<4x8xf32>
  %0 = tfc.transpose %c, [1, 0] : tensor<4x8xf32> -> tensor<8x4xf32>
  return %0 : tensor<8x4xf32>
}
