func.func @gemm_partial_bias_grad(%dy: tensor<4x16x128xf32>, %w: tensor<128x512xf32>, %h: tensor<4x16x512xf32>) -> (tensor<4x16x512xf32>, tensor<16x512xf32>) {
  %r:2 = tfc.fusion gemm (%a = %dy : tensor<4x16x128xf32>, %c = %w : tensor<128x512xf32>, %x = %h : tensor<4x16x512xf32>) -> (tensor<4x16x512xf32>, tensor<16x512xf32>) {
    %p = tfc.matmul %a, %c : tensor<4x16x128xf32>, tensor<128x512xf32> -> tensor<4x16x512xf32>
    %d = tfc.gelu_grad %p, %x approximate tanh : tensor<4x16x512xf32>
    %b = tfc.reduce_sum %d dims [0] : tensor<4x16x512xf32> -> tensor<16x512xf32>
    tfc.yield %d, %b : tensor<4x16x512xf32>, tensor<16x512xf32>
  }
  return %r#0, %r#1 : tensor<4x16x512xf32>, tensor<16x512xf32>
}
