func.func @column_sums_too_wide(%x: tensor<4x1024xf32>) -> (tensor<4xf32>, tensor<1024xf32>) {
  %r:2 = tfc.fusion row_reduction (%a = %x : tensor<4x1024xf32>) -> (tensor<4xf32>, tensor<1024xf32>) {
    %0 = tfc.reduce_sum %a dims [1] : tensor<4x1024xf32> -> tensor<4xf32>
    %1 = tfc.reduce_sum %a dims [0] : tensor<4x1024xf32> -> tensor<1024xf32>
    tfc.yield %0, %1 : tensor<4xf32>, tensor<1024xf32>
  }
  return %r#0, %r#1 : tensor<4xf32>, tensor<1024xf32>
}
