func.func @wrong_result_transposed(%a: tensor<32x16xf32>, %b: tensor<32x8xf32>) {
  %0 = tfc.matmul %a, %b transpose_a : tensor<32x16xf32>, tensor<32x8xf32> -> tensor<32x8xf32>
  return
}
