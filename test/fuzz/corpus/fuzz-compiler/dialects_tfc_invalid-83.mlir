func.func @integer_operands(%a: tensor<4x16xi32>, %b: tensor<16x8xi32>) {
  %0 = tfc.matmul %a, %b : tensor<4x16xi32>, tensor<16x8xi32> -> tensor<4x8xi32>
  return
}
