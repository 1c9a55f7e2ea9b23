func.func @stat_of_other_row(%x: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %r = tfc.fusion row_reduction (%a = %x : tensor<4x4xf32>) -> tensor<4x4xf32> {
    %m = tfc.reduce_max %a dims [-1] keepdim : tensor<4x4xf32> -> tensor<4x1xf32>
    %t = tfc.transpose %m, [1, 0] : tensor<4x1xf32> -> tensor<1x4xf32>
    %0 = tfc.sub %a, %t : tensor<4x4xf32>, tensor<1x4xf32>
    tfc.yield %0 : tensor<4x4xf32>
  }
  return %r : tensor<4x4xf32>
}
