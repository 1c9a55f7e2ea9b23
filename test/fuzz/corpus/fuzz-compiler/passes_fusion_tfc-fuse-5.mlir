func.func @bias_add_recomputed(%mm: tensor<8x64xf32>, %b: tensor<64xf32>, %w: tensor<64x64xf32>) -> (tensor<8x64xf32>, tensor<64xf32>) {
  %h = tfc.add %mm, %b : tensor<8x64xf32>, tensor<64xf32>
  %g = tfc.gelu %h : tensor<8x64xf32>
  %dy = tfc.matmul %g, %w : tensor<8x64xf32>, tensor<64x64xf32> -> tensor<8x64xf32>
  %dh = tfc.gelu_grad %dy, %h : tensor<8x64xf32>
  %db = tfc.reduce_sum %dh dims [0] : tensor<8x64xf32> -> tensor<64xf32>
  return %dh, %db : tensor<8x64xf32>, tensor<64xf32>
}
