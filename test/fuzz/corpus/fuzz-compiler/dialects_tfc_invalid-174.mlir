func.func @column_reduction_with_row(%x: tensor<4x8xf32>) -> (tensor<8xf32>, tensor<4x8xf32>) {
  %r:2 = tfc.fusion column_reduction (%a = %x : tensor<4x8xf32>) -> (tensor<8xf32>, tensor<4x8xf32>) {
    %0 = tfc.reduce_sum %a dims [0] : tensor<4x8xf32> -> tensor<8xf32>
    %1 = tfc.softmax %a dim -1 : tensor<4x8xf32>
    tfc.yield %0, %1 : tensor<8xf32>, tensor<4x8xf32>
  }
  return %r#0, %r#1 : tensor<8xf32>, tensor<4x8xf32>
}
