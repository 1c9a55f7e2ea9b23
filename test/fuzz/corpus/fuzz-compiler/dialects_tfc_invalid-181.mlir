func.func @gemm_with_erf_gelu(%x: tensor<16x128xf32>, %w: tensor<384x128xf32>, %b: tensor<384xf32>) -> tensor<16x384xf32> {
  %r = tfc.fusion gemm (%a = %x : tensor<16x128xf32>, %c = %w : tensor<384x128xf32>, %d = %b : tensor<384xf32>) -> tensor<16x384xf32> {
    %y = tfc.matmul %a, %c transpose_b : tensor<16x128xf32>, tensor<384x128xf32> -> tensor<16x384xf32>
    %0 = tfc.add %y, %d : tensor<16x384xf32>, tensor<384xf32>
    %1 = tfc.gelu %0 : tensor<16x384xf32>
    tfc.yield %1 : tensor<16x384xf32>
  }
  return %r : tensor<16x384xf32>
}
