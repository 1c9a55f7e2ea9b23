func.func @column_output_size(%x: tensor<64x16xf32>, %y: tensor<8xf32>) -> (tensor<16xf32>, tensor<8xf32>) {
  %r:2 = tfc.fusion column_reduction (%a = %x : tensor<64x16xf32>, %b = %y : tensor<8xf32>) -> (tensor<16xf32>, tensor<8xf32>) {
    %0 = tfc.reduce_sum %a dims [0] : tensor<64x16xf32> -> tensor<16xf32>
    %1 = tfc.neg %b : tensor<8xf32>
    tfc.yield %0, %1 : tensor<16xf32>, tensor<8xf32>
  }
  return %r#0, %r#1 : tensor<16xf32>, tensor<8xf32>
}
