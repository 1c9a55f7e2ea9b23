func.func @gemm_relu_input_escapes(%x: tensor<16x128xf32>, %w: tensor<384x128xf32>) -> (tensor<16x384xf32>, tensor<16x384xf32>) {
  %r:2 = tfc.fusion gemm (%a = %x : tensor<16x128xf32>, %c = %w : tensor<384x128xf32>) -> (tensor<16x384xf32>, tensor<16x384xf32>) {
    %y = tfc.matmul %a, %c transpose_b : tensor<16x128xf32>, tensor<384x128xf32> -> tensor<16x384xf32>
    %0 = tfc.relu %y : tensor<16x384xf32>
    tfc.yield %0, %y : tensor<16x384xf32>, tensor<16x384xf32>
  }
  return %r#0, %r#1 : tensor<16x384xf32>, tensor<16x384xf32>
}
