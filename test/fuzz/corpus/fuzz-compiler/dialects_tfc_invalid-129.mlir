func.func @attention_seq_len(%q: tensor<8x32xf32>, %k: tensor<8x32xf32>, %v: tensor<6x32xf32>) {
  %0 = tfc.attention %q, %k, %v : tensor<8x32xf32>, tensor<8x32xf32>, tensor<6x32xf32> -> tensor<8x32xf32>
  return
}
