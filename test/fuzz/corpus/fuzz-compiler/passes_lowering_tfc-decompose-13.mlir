func.func @matmul_partial_broadcast(%a: tensor<4x1x2x5xf32>, %b: tensor<3x5x6xf32>) -> tensor<4x3x2x6xf32> {
  %0 = tfc.matmul %a, %b : tensor<4x1x2x5xf32>, tensor<3x5x6xf32> -> tensor<4x3x2x6xf32>
  return %0 : tensor<4x3x2x6xf32>
}
