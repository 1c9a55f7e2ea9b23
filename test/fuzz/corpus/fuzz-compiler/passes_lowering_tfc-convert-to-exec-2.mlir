func.func @loss(%x: tensor<2x4xf32> {tfc.input = "x"}) -> (tensor<2x4xf32>, tensor<8xf32>, tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x1xf32>) {
  %flat = tfc.reshape %x : tensor<2x4xf32> -> tensor<8xf32>
  %0 = tfc.fusion pointwise (%in = %flat : tensor<8xf32>) -> tensor<8xf32> {
    %r = tfc.neg %in : tensor<8xf32>
    tfc.yield %r : tensor<8xf32>
  }
  %back = tfc.reshape %0 : tensor<8xf32> -> tensor<2x4xf32>
  %y:3 = tfc.fusion row_reduction (%in = %back : tensor<2x4xf32>) -> (tensor<2x4xf32>, tensor<2x1xf32>, tensor<2x1xf32>) {
    %r, %mean, %rstd = tfc.layer_norm %in : (tensor<2x4xf32>) -> (tensor<2x4xf32>, tensor<2x1xf32>, tensor<2x1xf32>)
    tfc.yield %r, %mean, %rstd : tensor<2x4xf32>, tensor<2x1xf32>, tensor<2x1xf32>
  }
  return %x, %0, %y#0, %y#0, %y#2 : tensor<2x4xf32>, tensor<8xf32>, tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x1xf32>
}
