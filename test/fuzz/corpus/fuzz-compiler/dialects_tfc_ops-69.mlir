func.func @unfused_chain(%x: tensor<8x32xf32>) -> tensor<8xf32> {
  %e = tfc.fusion pointwise (%a = %x : tensor<8x32xf32>) -> tensor<8x32xf32> {
    %0 = tfc.exp %a : tensor<8x32xf32>
    tfc.yield %0 : tensor<8x32xf32>
  }
  %s = tfc.fusion row_reduction (%a = %e : tensor<8x32xf32>) -> tensor<8xf32> {
    %0 = tfc.reduce_max %a dims [-1] : tensor<8x32xf32> -> tensor<8xf32>
    tfc.yield %0 : tensor<8xf32>
  }
  return %s : tensor<8xf32>
}
