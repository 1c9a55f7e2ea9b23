func.func @bf16(%x: tensor<16x64x128xbf16>) -> tensor<128xbf16> {
  %0 = tfc.reduce_sum %x dims [0, 1] : tensor<16x64x128xbf16> -> tensor<128xbf16>
  return %0 : tensor<128xbf16>
}
