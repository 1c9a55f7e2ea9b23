func.func @transpose_both(%a: tensor<16x32xf64>, %b: tensor<8x16xf64>) -> tensor<32x8xf64> {
  %0 = tfc.matmul %a, %b transpose_a transpose_b : tensor<16x32xf64>, tensor<8x16xf64> -> tensor<32x8xf64>
  return %0 : tensor<32x8xf64>
}
