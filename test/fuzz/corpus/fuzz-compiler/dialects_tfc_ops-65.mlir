func.func @gemm(%x: tensor<16x128xf32>, %w: tensor<384x128xf32>) -> tensor<16x384xf32> {
  %r = tfc.fusion gemm (%a = %x : tensor<16x128xf32>, %c = %w : tensor<384x128xf32>) -> tensor<16x384xf32> {
    %y = tfc.matmul %a, %c transpose_b : tensor<16x128xf32>, tensor<384x128xf32> -> tensor<16x384xf32>
    tfc.yield %y : tensor<16x384xf32>
  }
  return %r : tensor<16x384xf32>
}
