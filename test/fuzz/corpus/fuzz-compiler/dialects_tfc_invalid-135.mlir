func.func @attention_seed_no_dropout(%q: tensor<8x32xf32>, %s: tensor<i64>, %o: tensor<i64>) {
  %0 = "tfc.attention"(%q, %q, %q, %s, %o) <{operandSegmentSizes = array<i32: 1, 1, 1, 0, 1, 1>}> : (tensor<8x32xf32>, tensor<8x32xf32>, tensor<8x32xf32>, tensor<i64>, tensor<i64>) -> tensor<8x32xf32>
  return
}
