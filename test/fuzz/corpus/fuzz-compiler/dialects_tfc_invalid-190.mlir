func.func @row_value_as_weight(%x: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %r = tfc.fusion row_reduction (%a = %x : tensor<8x8xf32>) -> tensor<8x8xf32> {
    %s = tfc.reduce_sum %a dims [1] : tensor<8x8xf32> -> tensor<8xf32>
    %y, %m, %v = tfc.layer_norm %a weight %s : (tensor<8x8xf32>, tensor<8xf32>) -> (tensor<8x8xf32>, tensor<8x1xf32>, tensor<8x1xf32>)
    tfc.yield %y : tensor<8x8xf32>
  }
  return %r : tensor<8x8xf32>
}
