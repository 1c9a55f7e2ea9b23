func.func @column_reduction_without_reduction(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %r = tfc.fusion column_reduction (%a = %x : tensor<4x8xf32>) -> tensor<4x8xf32> {
    %0 = tfc.neg %a : tensor<4x8xf32>
    tfc.yield %0 : tensor<4x8xf32>
  }
  return %r : tensor<4x8xf32>
}
