func.func @composite_in_kernel(%x: tensor<4x8x16xf32>) -> tensor<8xf32> {
  %r = tfc.fusion row_reduction (%a = %x : tensor<4x8x16xf32>) -> tensor<8xf32> {
    %0 = tfc.reduce_max %a dims [0, 2] : tensor<4x8x16xf32> -> tensor<8xf32>
    tfc.yield %0 : tensor<8xf32>
  }
  return %r : tensor<8xf32>
}
