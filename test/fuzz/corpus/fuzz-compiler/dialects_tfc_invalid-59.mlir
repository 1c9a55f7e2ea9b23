func.func @iota_inexact() -> tensor<512xbf16> {
  %0 = tfc.iota dim 0 : tensor<512xbf16>
  return %0 : tensor<512xbf16>
}
