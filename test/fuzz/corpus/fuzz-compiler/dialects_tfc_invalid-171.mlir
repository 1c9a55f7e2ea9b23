func.func @row_reduction_without_reduction(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %r = tfc.fusion row_reduction (%a = %x : tensor<4x8xf32>) -> tensor<4x8xf32> {
    %0 = tfc.exp %a : tensor<4x8xf32>
    tfc.yield %0 : tensor<4x8xf32>
  }
  return %r : tensor<4x8xf32>
}
