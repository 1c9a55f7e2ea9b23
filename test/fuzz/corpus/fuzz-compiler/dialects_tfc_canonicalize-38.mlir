func.func @mean_of_singleton(%x: tensor<1x8x1xbf16>) -> tensor<1x8x1xbf16> {
  %0 = tfc.reduce_mean %x dims [0, -1] keepdim : tensor<1x8x1xbf16> -> tensor<1x8x1xbf16>
  return %0 : tensor<1x8x1xbf16>
}
