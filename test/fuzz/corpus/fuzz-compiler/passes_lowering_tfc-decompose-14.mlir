func.func @matmul_stridable(%x: tensor<16x64x128xf32>, %w: tensor<384x128xf32>, %a: tensor<1x1x2x5xf32>, %b: tensor<4x3x5x6xf32>) -> (tensor<16x64x384xf32>, tensor<4x3x2x6xf32>) {
  %0 = tfc.matmul %x, %w transpose_b : tensor<16x64x128xf32>, tensor<384x128xf32> -> tensor<16x64x384xf32>
  %1 = tfc.matmul %a, %b : tensor<1x1x2x5xf32>, tensor<4x3x5x6xf32> -> tensor<4x3x2x6xf32>
  return %0, %1 : tensor<16x64x384xf32>, tensor<4x3x2x6xf32>
}
