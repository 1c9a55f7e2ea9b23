func.func @column_sum_read_per_row(%x: tensor<4x8xf32>) -> (tensor<4xf32>, tensor<4x8xf32>) {
  %r:2 = tfc.fusion row_reduction (%a = %x : tensor<4x8xf32>) -> (tensor<4xf32>, tensor<4x8xf32>) {
    %0 = tfc.reduce_sum %a dims [1] : tensor<4x8xf32> -> tensor<4xf32>
    %1 = tfc.reduce_sum %a dims [0] : tensor<4x8xf32> -> tensor<8xf32>
    %2 = tfc.add %a, %1 : tensor<4x8xf32>, tensor<8xf32>
    tfc.yield %0, %2 : tensor<4xf32>, tensor<4x8xf32>
  }
  return %r#0, %r#1 : tensor<4xf32>, tensor<4x8xf32>
}
