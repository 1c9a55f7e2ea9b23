func.func @matmul_2d(%a: tensor<32x16xf32>, %b: tensor<16x8xf32>) -> tensor<32x8xf32> {
  %0 = tfc.matmul %a, %b : tensor<32x16xf32>, tensor<16x8xf32> -> tensor<32x8xf32>
  return %0 : tensor<32x8xf32>
}
