func.func @row_reduction_role(%x: tensor<4x8xf32>, %y: tensor<4x2x4xf32>) -> (tensor<4xf32>, tensor<4x1x1xf32>) {
  %r:2 = tfc.fusion row_reduction (%a = %x : tensor<4x8xf32>, %b = %y : tensor<4x2x4xf32>) -> (tensor<4xf32>, tensor<4x1x1xf32>) {
    %0 = tfc.reduce_sum %a dims [-1] : tensor<4x8xf32> -> tensor<4xf32>
    %1 = tfc.reduce_max %b dims [2, 1] keepdim : tensor<4x2x4xf32> -> tensor<4x1x1xf32>
    tfc.yield %0, %1 : tensor<4xf32>, tensor<4x1x1xf32>
  }
  return %r#0, %r#1 : tensor<4xf32>, tensor<4x1x1xf32>
}
