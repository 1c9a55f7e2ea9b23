func.func @ops(%q: tensor<2x4x8xf32> {tfc.input = "q"},
               %k: tensor<2x4x8xf32> {tfc.input = "k"},
               %v: tensor<2x4x8xf32> {tfc.input = "v"})
    -> (tensor<2x8xf32>, tensor<2x8x4xf32>) {
  %att = tfc.attention %q, %k, %v causal : tensor<2x4x8xf32>, tensor<2x4x8xf32>, tensor<2x4x8xf32> -> tensor<2x4x8xf32>
  %t = tfc.tanh %att : tensor<2x4x8xf32>
  %tt = tfc.transpose %t, [0, 2, 1] : tensor<2x4x8xf32> -> tensor<2x8x4xf32>
  %s = tfc.softmax %tt dim -1 : tensor<2x8x4xf32>
  %e = tfc.exp %s : tensor<2x8x4xf32>
  %sum = tfc.reduce_sum %e dims [2] : tensor<2x8x4xf32> -> tensor<2x8xf32>
  %sq = tfc.sqrt %tt : tensor<2x8x4xf32>
  return %sum, %sq : tensor<2x8xf32>, tensor<2x8x4xf32>
}
