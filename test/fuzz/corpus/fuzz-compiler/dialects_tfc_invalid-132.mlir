func.func @attention_scale(%q: tensor<8x32xf32>) {
  %0 = tfc.attention %q, %q, %q scale 0.0 : tensor<8x32xf32>, tensor<8x32xf32>, tensor<8x32xf32> -> tensor<8x32xf32>
  return
}
