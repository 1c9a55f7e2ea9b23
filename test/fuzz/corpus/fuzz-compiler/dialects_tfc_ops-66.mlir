func.func @gemm_bias_gelu(%x: tensor<16x128xf32>, %w: tensor<512x128xf32>, %b: tensor<1x512xf32>) -> (tensor<16x512xf32>, tensor<16x512xf32>) {
  %r:2 = tfc.fusion gemm (%a = %x : tensor<16x128xf32>, %c = %w : tensor<512x128xf32>, %d = %b : tensor<1x512xf32>) -> (tensor<16x512xf32>, tensor<16x512xf32>) {
    %y = tfc.matmul %a, %c transpose_b : tensor<16x128xf32>, tensor<512x128xf32> -> tensor<16x512xf32>
    %0 = tfc.add %d, %y : tensor<1x512xf32>, tensor<16x512xf32>
    %1 = tfc.gelu %0 approximate tanh : tensor<16x512xf32>
    tfc.yield %1, %0 : tensor<16x512xf32>, tensor<16x512xf32>
  }
  return %r#0, %r#1 : tensor<16x512xf32>, tensor<16x512xf32>
}
