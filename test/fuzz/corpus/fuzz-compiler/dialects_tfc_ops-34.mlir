func.func @batch_broadcast(%a: tensor<2x1x8x16xf32>, %b: tensor<3x16x4xf32>) -> tensor<2x3x8x4xf32> {
  %0 = tfc.matmul %a, %b : tensor<2x1x8x16xf32>, tensor<3x16x4xf32> -> tensor<2x3x8x4xf32>
  return %0 : tensor<2x3x8x4xf32>
}
