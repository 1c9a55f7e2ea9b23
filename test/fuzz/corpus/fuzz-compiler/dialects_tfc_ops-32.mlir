func.func @transpose_a(%a: tensor<32x16xf32>, %b: tensor<32x8xf32>) -> tensor<16x8xf32> {
  %0 = tfc.matmul %a, %b transpose_a : tensor<32x16xf32>, tensor<32x8xf32> -> tensor<16x8xf32>
  return %0 : tensor<16x8xf32>
}
