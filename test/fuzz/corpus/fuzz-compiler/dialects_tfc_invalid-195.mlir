func.func @column_of_column(%x: tensor<1x8xf32>) -> tensor<8xf32> {
  %r = tfc.fusion column_reduction (%a = %x : tensor<1x8xf32>) -> tensor<8xf32> {
    %0 = tfc.reduce_sum %a dims [0] keepdim : tensor<1x8xf32> -> tensor<1x8xf32>
    %1 = tfc.reduce_sum %0 dims [0] : tensor<1x8xf32> -> tensor<8xf32>
    tfc.yield %1 : tensor<8xf32>
  }
  return %r : tensor<8xf32>
}
