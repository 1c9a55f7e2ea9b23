func.func @attention_rank1(%q: tensor<32xf32>) {
  %0 = tfc.attention %q, %q, %q : tensor<32xf32>, tensor<32xf32>, tensor<32xf32> -> tensor<32xf32>
  return
}
