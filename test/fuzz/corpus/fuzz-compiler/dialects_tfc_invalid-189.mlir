func.func @stat_broadcast_across_rows(%x: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %r = tfc.fusion row_reduction (%a = %x : tensor<4x4xf32>) -> tensor<4x4xf32> {
    %m = tfc.reduce_max %a dims [-1] : tensor<4x4xf32> -> tensor<4xf32>
    %0 = tfc.sub %a, %m : tensor<4x4xf32>, tensor<4xf32>
    tfc.yield %0 : tensor<4x4xf32>
  }
  return %r : tensor<4x4xf32>
}
