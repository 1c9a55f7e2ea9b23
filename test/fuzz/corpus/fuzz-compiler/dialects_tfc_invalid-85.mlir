func.func @missing_transpose_b(%x: tensor<16x64x128xf32>, %w: tensor<384x128xf32>) {
  %0 = tfc.matmul %x, %w : tensor<16x64x128xf32>, tensor<384x128xf32> -> tensor<16x64x384xf32>
  return
}
