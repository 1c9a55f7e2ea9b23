func.func @rank2_lhs(%a: tensor<8x16xbf16>, %b: tensor<4x16x32xbf16>) -> tensor<4x8x32xbf16> {
  %0 = tfc.matmul %a, %b : tensor<8x16xbf16>, tensor<4x16x32xbf16> -> tensor<4x8x32xbf16>
  return %0 : tensor<4x8x32xbf16>
}
