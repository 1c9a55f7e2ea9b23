func.func @reduce_mean_bf16(%x: tensor<4x8x16xbf16>) -> tensor<8xbf16> {
  %0 = tfc.reduce_mean %x dims [0, 2] : tensor<4x8x16xbf16> -> tensor<8xbf16>
  return %0 : tensor<8xbf16>
}
