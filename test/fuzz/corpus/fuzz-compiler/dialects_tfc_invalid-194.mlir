func.func @column_mismatch(%x: tensor<4x8x16xf32>) -> (tensor<8x16xf32>, tensor<16xf32>) {
  %r:2 = tfc.fusion column_reduction (%a = %x : tensor<4x8x16xf32>) -> (tensor<8x16xf32>, tensor<16xf32>) {
    %0 = tfc.reduce_sum %a dims [0] : tensor<4x8x16xf32> -> tensor<8x16xf32>
    %1 = tfc.reduce_sum %a dims [0, 1] : tensor<4x8x16xf32> -> tensor<16xf32>
    tfc.yield %0, %1 : tensor<8x16xf32>, tensor<16xf32>
  }
  return %r#0, %r#1 : tensor<8x16xf32>, tensor<16xf32>
}
