func.func @batch_mismatch(%a: tensor<2x8x16xf32>, %b: tensor<3x16x4xf32>) {
  %0 = tfc.matmul %a, %b : tensor<2x8x16xf32>, tensor<3x16x4xf32> -> tensor<3x8x4xf32>
  return
}
