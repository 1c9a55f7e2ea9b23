func.func @convert_exact_chain(%x: tensor<4xf16>) -> tensor<4xbf16> {
  %0 = tfc.convert %x : tensor<4xf16> -> tensor<4xf32>
  %1 = tfc.convert %0 : tensor<4xf32> -> tensor<4xbf16>
  return %1 : tensor<4xbf16>
}
