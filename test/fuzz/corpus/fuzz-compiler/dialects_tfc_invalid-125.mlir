func.func @attention_batch(%q: tensor<2x4x8x32xf32>, %k: tensor<2x1x8x32xf32>) {
  %0 = tfc.attention %q, %k, %k : tensor<2x4x8x32xf32>, tensor<2x1x8x32xf32>, tensor<2x1x8x32xf32> -> tensor<2x4x8x32xf32>
  return
}
