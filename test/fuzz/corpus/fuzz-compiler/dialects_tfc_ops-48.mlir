func.func @attention_causal(%q: tensor<16x4x64x32xf32>, %k: tensor<16x4x64x32xf32>, %v: tensor<16x4x64x32xf32>) -> tensor<16x4x64x32xf32> {
  %o = tfc.attention %q, %k, %v causal : tensor<16x4x64x32xf32>, tensor<16x4x64x32xf32>, tensor<16x4x64x32xf32> -> tensor<16x4x64x32xf32>
  return %o : tensor<16x4x64x32xf32>
}
