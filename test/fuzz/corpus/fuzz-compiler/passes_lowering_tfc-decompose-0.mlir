func.func @causal_attention(%q: tensor<2x4x8x32xf32>, %k: tensor<2x4x8x32xf32>, %v: tensor<2x4x8x32xf32>) -> tensor<2x4x8x32xf32> {
  %0 = tfc.attention %q, %k, %v causal : tensor<2x4x8x32xf32>, tensor<2x4x8x32xf32>, tensor<2x4x8x32xf32> -> tensor<2x4x8x32xf32>
  return %0 : tensor<2x4x8x32xf32>
}
