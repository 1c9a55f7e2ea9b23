func.func @gemm_constant_operand(%x: tensor<2x4xf32>) -> tensor<2x4xf32> {
  %c = tfc.constant dense<1.0> : tensor<4x4xf32>
  %0 = tfc.matmul %x, %c : tensor<2x4xf32>, tensor<4x4xf32> -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}
