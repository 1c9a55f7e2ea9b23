func.func @multi_tensor_with_gemm(%x: tensor<16x128xf32>, %w: tensor<384x128xf32>) -> tensor<16x384xf32> {
  %r = tfc.fusion multi_tensor (%a = %x : tensor<16x128xf32>, %b = %w : tensor<384x128xf32>) -> tensor<16x384xf32> {
    %y = tfc.matmul %a, %b transpose_b : tensor<16x128xf32>, tensor<384x128xf32> -> tensor<16x384xf32>
    tfc.yield %y : tensor<16x384xf32>
  }
  return %r : tensor<16x384xf32>
}
