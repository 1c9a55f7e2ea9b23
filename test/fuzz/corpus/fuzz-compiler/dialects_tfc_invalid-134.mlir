func.func @attention_dropout_no_seed(%q: tensor<8x32xf32>) {
  %0 = "tfc.attention"(%q, %q, %q) <{dropout = 1.0e-01 : f64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0>}> : (tensor<8x32xf32>, tensor<8x32xf32>, tensor<8x32xf32>) -> tensor<8x32xf32>
  return
}
