func.func @column_sum_not_over_rows(%x: tensor<4x8x2xf32>) -> (tensor<4x8xf32>, tensor<4x2xf32>) {
  %r:2 = tfc.fusion row_reduction (%a = %x : tensor<4x8x2xf32>) -> (tensor<4x8xf32>, tensor<4x2xf32>) {
    %0 = tfc.reduce_sum %a dims [2] : tensor<4x8x2xf32> -> tensor<4x8xf32>
    %1 = tfc.reduce_mean %a dims [1] : tensor<4x8x2xf32> -> tensor<4x2xf32>
    tfc.yield %0, %1 : tensor<4x8xf32>, tensor<4x2xf32>
  }
  return %r#0, %r#1 : tensor<4x8xf32>, tensor<4x2xf32>
}
