func.func @attention_result(%q: tensor<8x32xf32>, %k: tensor<6x32xf32>, %v: tensor<6x16xf32>) {
  %0 = tfc.attention %q, %k, %v : tensor<8x32xf32>, tensor<6x32xf32>, tensor<6x16xf32> -> tensor<8x32xf32>
  return
}
