func.func @loss(%x: tensor<4xf32> {tfc.param = "x"}) -> tensor<f32> {
  %y = tfc.fusion pointwise (%a = %x : tensor<4xf32>) -> (tensor<4xf32>) {
    %e = tfc.exp %a : tensor<4xf32>
    tfc.yield %e : tensor<4xf32>
  }
  %s = tfc.reduce_sum %y dims [0] : tensor<4xf32> -> tensor<f32>
  return %s : tensor<f32>
}
