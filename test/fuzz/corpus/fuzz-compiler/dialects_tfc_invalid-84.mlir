func.func @contraction_mismatch(%a: tensor<4x16xf32>, %b: tensor<12x8xf32>) {
  %0 = tfc.matmul %a, %b : tensor<4x16xf32>, tensor<12x8xf32> -> tensor<4x8xf32>
  return
}
