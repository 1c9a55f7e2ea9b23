func.func @zero_dropout_attention(%q: tensor<8x16xf32>, %seed: tensor<i64>, %offset: tensor<i64>) -> tensor<8x16xf32> {
  %0 = tfc.attention %q, %q, %q dropout 0.0 seed %seed offset %offset : tensor<8x16xf32>, tensor<8x16xf32>, tensor<8x16xf32> -> tensor<8x16xf32>
  return %0 : tensor<8x16xf32>
}
