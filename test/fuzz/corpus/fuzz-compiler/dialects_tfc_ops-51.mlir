func.func @attention_cross(%q: tensor<8x32xf32>, %k: tensor<24x32xf32>, %v: tensor<24x48xf32>) -> tensor<8x48xf32> {
  %o = tfc.attention %q, %k, %v : tensor<8x32xf32>, tensor<24x32xf32>, tensor<24x48xf32> -> tensor<8x48xf32>
  return %o : tensor<8x48xf32>
}
