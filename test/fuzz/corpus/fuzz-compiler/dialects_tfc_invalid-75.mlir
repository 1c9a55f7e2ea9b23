func.func @column_in_row_kernel(%x: tensor<4x8x2xf32>) -> tensor<4x2xf32> {
  %r = tfc.fusion row_reduction (%a = %x : tensor<4x8x2xf32>) -> tensor<4x2xf32> {
    %0 = tfc.reduce_mean %a dims [1] : tensor<4x8x2xf32> -> tensor<4x2xf32>
    tfc.yield %0 : tensor<4x2xf32>
  }
  return %r : tensor<4x2xf32>
}
