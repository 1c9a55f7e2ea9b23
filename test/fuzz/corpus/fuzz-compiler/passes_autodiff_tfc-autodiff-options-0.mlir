func.func @f(%x: tensor<2x8xf32> {tfc.param = "x"}, %w: tensor<8xf32> {tfc.param = "ln.weight"}, %bias: tensor<8xf32> {tfc.param = "ln.bias"}, %seed: tensor<i64>, %off: tensor<i64>) -> tensor<f32> {
  %y, %m, %r = tfc.layer_norm %x weight %w bias %bias : (tensor<2x8xf32>, tensor<8xf32>, tensor<8xf32>) -> (tensor<2x8xf32>, tensor<2x1xf32>, tensor<2x1xf32>)
  %g = tfc.gelu %y approximate tanh : tensor<2x8xf32>
  %d = tfc.dropout %g, %seed, %off p 1.000000e-01 : tensor<2x8xf32>
  %s = tfc.reduce_mean %d dims [0, 1] : tensor<2x8xf32> -> tensor<f32>
  return %s : tensor<f32>
}
