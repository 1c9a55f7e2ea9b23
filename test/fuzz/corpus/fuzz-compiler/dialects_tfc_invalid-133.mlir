func.func @attention_dropout_p(%q: tensor<8x32xf32>, %s: tensor<i64>, %o: tensor<i64>) {
  %0 = tfc.attention %q, %q, %q dropout 1.5 seed %s offset %o : tensor<8x32xf32>, tensor<8x32xf32>, tensor<8x32xf32> -> tensor<8x32xf32>
  return
}
