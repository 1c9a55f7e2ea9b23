func.func @column_reduction(%dy: tensor<16x128xbf16>) -> tensor<128xf32> {
  %r = tfc.fusion column_reduction (%a = %dy : tensor<16x128xbf16>) -> tensor<128xf32> {
    %0 = tfc.convert %a : tensor<16x128xbf16> -> tensor<16x128xf32>
    %1 = tfc.reduce_sum %0 dims [0] : tensor<16x128xf32> -> tensor<128xf32>
    tfc.yield %1 : tensor<128xf32>
  }
  return %r : tensor<128xf32>
}
