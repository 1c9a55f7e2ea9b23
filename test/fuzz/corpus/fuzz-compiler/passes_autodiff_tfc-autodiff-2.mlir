func.func @loss(%q: tensor<1x2x4x8xf32> {tfc.param = "q"}, %k: tensor<1x2x4x8xf32> {tfc.input = "k"}, %v: tensor<1x2x4x8xf32> {tfc.input = "v"}) -> tensor<f32> {
  %o = tfc.attention %q, %k, %v causal : tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32> -> tensor<1x2x4x8xf32>
  %s = tfc.reduce_sum %o dims [0, 1, 2, 3] : tensor<1x2x4x8xf32> -> tensor<f32>
  return %s : tensor<f32>
}
