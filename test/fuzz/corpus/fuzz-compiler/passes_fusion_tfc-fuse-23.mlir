func.func @gemm_bias_gelu_aux(%x: tensor<8x32xf32>, %w: tensor<64x32xf32>, %b: tensor<64xf32>, %w2: tensor<64x64xf32>) -> (tensor<8x64xf32>, tensor<64xf32>) {
  %mm = tfc.matmul %x, %w transpose_b : tensor<8x32xf32>, tensor<64x32xf32> -> tensor<8x64xf32>
  %h = tfc.add %mm, %b : tensor<8x64xf32>, tensor<64xf32>
  %g = tfc.gelu %h approximate tanh : tensor<8x64xf32>
  %dy = tfc.matmul %g, %w2 : tensor<8x64xf32>, tensor<64x64xf32> -> tensor<8x64xf32>
  %dh = tfc.gelu_grad %dy, %h approximate tanh : tensor<8x64xf32>
  %db = tfc.reduce_sum %dh dims [0] : tensor<8x64xf32> -> tensor<64xf32>
  return %dh, %db : tensor<8x64xf32>, tensor<64xf32>
}
