func.func @reduce_empty(%x: tensor<4x0xf32>) -> tensor<4xf32> {
  %r = tfc.fusion row_reduction (%a = %x : tensor<4x0xf32>) -> tensor<4xf32> {
    %0 = tfc.reduce_sum %a dims [1] : tensor<4x0xf32> -> tensor<4xf32>
    tfc.yield %0 : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}
