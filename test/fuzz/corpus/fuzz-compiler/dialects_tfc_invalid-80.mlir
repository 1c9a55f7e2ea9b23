func.func @a_rank1(%a: tensor<16xf32>, %b: tensor<16x8xf32>) {
  %0 = tfc.matmul %a, %b : tensor<16xf32>, tensor<16x8xf32> -> tensor<8xf32>
  return
}
