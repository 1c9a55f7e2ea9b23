func.func @gemm_activation_no_bias(%x: tensor<8x32xf32>, %w: tensor<16x32xf32>, %w2: tensor<16x16xf32>, %dy: tensor<8x16xf32>) -> (tensor<8x16xf32>, tensor<8x16xf32>) {
  %mm = tfc.matmul %x, %w transpose_b : tensor<8x32xf32>, tensor<16x32xf32> -> tensor<8x16xf32>
  %r = tfc.relu %mm : tensor<8x16xf32>
  %mm2 = tfc.matmul %r, %w2 : tensor<8x16xf32>, tensor<16x16xf32> -> tensor<8x16xf32>
  %g = tfc.gelu %mm2 approximate tanh : tensor<8x16xf32>
  %dh = tfc.gelu_grad %dy, %mm2 approximate tanh : tensor<8x16xf32>
  return %g, %dh : tensor<8x16xf32>, tensor<8x16xf32>
}
