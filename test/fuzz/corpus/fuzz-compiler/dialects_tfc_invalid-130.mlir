func.func @attention_dtype(%q: tensor<8x32xf32>, %k: tensor<8x32xbf16>) {
  %0 = tfc.attention %q, %k, %k : tensor<8x32xf32>, tensor<8x32xbf16>, tensor<8x32xbf16> -> tensor<8x32xf32>
  return
}
