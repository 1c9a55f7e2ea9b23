func.func @attention_dropout_syntax(%q: tensor<8x32xf32>, %s: tensor<i64>) {
  %0 = tfc.attention %q, %q, %q dropout 1.0e-01 seed %s : tensor<8x32xf32>, tensor<8x32xf32>, tensor<8x32xf32> -> tensor<8x32xf32>
  return
}
