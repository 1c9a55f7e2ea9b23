func.func @gemm_activations(%x: tensor<16x128xf32>, %w: tensor<512x128xf32>) -> (tensor<16x512xf32>, tensor<16x512xf32>, tensor<16x512xf32>) {
  %r = tfc.fusion gemm (%a = %x : tensor<16x128xf32>, %c = %w : tensor<512x128xf32>) -> tensor<16x512xf32> {
    %y = tfc.matmul %a, %c transpose_b : tensor<16x128xf32>, tensor<512x128xf32> -> tensor<16x512xf32>
    %0 = tfc.relu %y : tensor<16x512xf32>
    tfc.yield %0 : tensor<16x512xf32>
  }
  %g:2 = tfc.fusion gemm (%a = %x : tensor<16x128xf32>, %c = %w : tensor<512x128xf32>) -> (tensor<16x512xf32>, tensor<16x512xf32>) {
    %y = tfc.matmul %a, %c transpose_b : tensor<16x128xf32>, tensor<512x128xf32> -> tensor<16x512xf32>
    %0 = tfc.gelu %y approximate tanh : tensor<16x512xf32>
    tfc.yield %0, %y : tensor<16x512xf32>, tensor<16x512xf32>
  }
  return %r, %g#0, %g#1 : tensor<16x512xf32>, tensor<16x512xf32>, tensor<16x512xf32>
}
