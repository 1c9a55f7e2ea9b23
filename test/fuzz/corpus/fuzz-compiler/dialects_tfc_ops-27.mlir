func.func @column_reduction_role(%dy: tensor<16x64x128xf32>) -> tensor<128xf32> {
  %r = tfc.fusion column_reduction (%a = %dy : tensor<16x64x128xf32>) -> tensor<128xf32> {
    %0 = tfc.reduce_sum %a dims [0, 1] : tensor<16x64x128xf32> -> tensor<128xf32>
    tfc.yield %0 : tensor<128xf32>
  }
  return %r : tensor<128xf32>
}
