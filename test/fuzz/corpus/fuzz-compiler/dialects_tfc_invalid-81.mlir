func.func @b_rank1(%a: tensor<4x16xf32>, %b: tensor<16xf32>) {
  %0 = tfc.matmul %a, %b : tensor<4x16xf32>, tensor<16xf32> -> tensor<4xf32>
  return
}
