func.func @loss(%x: tensor<2x8xf32> {tfc.param = "x"}) -> tensor<f32> {
  %y, %m, %r = tfc.layer_norm %x : (tensor<2x8xf32>) -> (tensor<2x8xf32>, tensor<2x1xf32>, tensor<2x1xf32>)
  %s = tfc.reduce_sum %m dims [0, 1] : tensor<2x1xf32> -> tensor<f32>
  return %s : tensor<f32>
}
