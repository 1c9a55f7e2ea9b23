func.func @attention_head_dim(%q: tensor<8x32xf32>, %k: tensor<8x16xf32>, %v: tensor<8x32xf32>) {
  %0 = tfc.attention %q, %k, %v : tensor<8x32xf32>, tensor<8x16xf32>, tensor<8x32xf32> -> tensor<8x32xf32>
  return
}
