func.func @linear(%x: tensor<16x64x128xf32>, %w: tensor<384x128xf32>) -> tensor<16x64x384xf32> {
  %0 = tfc.matmul %x, %w transpose_b : tensor<16x64x128xf32>, tensor<384x128xf32> -> tensor<16x64x384xf32>
  return %0 : tensor<16x64x384xf32>
}
