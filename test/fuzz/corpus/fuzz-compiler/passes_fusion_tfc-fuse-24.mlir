func.func @gemm_bias_gelu_forward(%x: tensor<8x32xf32>, %w: tensor<12x32xf32>, %b: tensor<12xf32>) -> (tensor<8x12xf32>, tensor<8x12xf32>) {
  %mm = tfc.matmul %x, %w transpose_b : tensor<8x32xf32>, tensor<12x32xf32> -> tensor<8x12xf32>
  %h = tfc.add %mm, %b : tensor<8x12xf32>, tensor<12xf32>
  %g = tfc.gelu %h approximate tanh : tensor<8x12xf32>
  %mm2 = tfc.matmul %x, %w transpose_b : tensor<8x32xf32>, tensor<12x32xf32> -> tensor<8x12xf32>
  %h2 = tfc.add %mm2, %b : tensor<8x12xf32>, tensor<12xf32>
  %e = tfc.gelu %h2 : tensor<8x12xf32>
  return %g, %e : tensor<8x12xf32>, tensor<8x12xf32>
}
