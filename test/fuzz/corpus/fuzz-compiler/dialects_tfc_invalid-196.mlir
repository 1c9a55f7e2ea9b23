func.func @column_sum_broadcast(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %r = tfc.fusion column_reduction (%a = %x : tensor<4x8xf32>) -> tensor<4x8xf32> {
    %0 = tfc.reduce_mean %a dims [0] : tensor<4x8xf32> -> tensor<8xf32>
    %1 = tfc.sub %a, %0 : tensor<4x8xf32>, tensor<8xf32>
    tfc.yield %1 : tensor<4x8xf32>
  }
  return %r : tensor<4x8xf32>
}
