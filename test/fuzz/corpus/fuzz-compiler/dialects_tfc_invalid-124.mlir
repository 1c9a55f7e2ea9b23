func.func @attention_rank_mismatch(%q: tensor<2x8x32xf32>, %k: tensor<8x32xf32>) {
  %0 = tfc.attention %q, %k, %k : tensor<2x8x32xf32>, tensor<8x32xf32>, tensor<8x32xf32> -> tensor<2x8x32xf32>
  return
}
