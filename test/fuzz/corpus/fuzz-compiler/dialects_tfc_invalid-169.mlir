func.func @pointwise_with_reduction(%x: tensor<4x8xf32>) -> tensor<4xf32> {
  %r = tfc.fusion pointwise (%a = %x : tensor<4x8xf32>) -> tensor<4xf32> {
    %s = tfc.reduce_sum %a dims [1] : tensor<4x8xf32> -> tensor<4xf32>
    tfc.yield %s : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}
