func.func @convert_round_trip(%x: tensor<4xbf16>) -> tensor<4xbf16> {
  %0 = tfc.convert %x : tensor<4xbf16> -> tensor<4xf32>
  %1 = tfc.convert %0 : tensor<4xf32> -> tensor<4xbf16>
  return %1 : tensor<4xbf16>
}
