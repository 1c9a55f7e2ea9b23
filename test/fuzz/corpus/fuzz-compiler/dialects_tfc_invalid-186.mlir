func.func @gemm_dgelu_erf(%dy: tensor<64x128xf32>, %w: tensor<128x512xf32>, %h: tensor<64x512xf32>) -> tensor<64x512xf32> {
  %r = tfc.fusion gemm (%a = %dy : tensor<64x128xf32>, %c = %w : tensor<128x512xf32>, %x = %h : tensor<64x512xf32>) -> tensor<64x512xf32> {
    %p = tfc.matmul %a, %c : tensor<64x128xf32>, tensor<128x512xf32> -> tensor<64x512xf32>
    %d = tfc.gelu_grad %p, %x : tensor<64x512xf32>
    tfc.yield %d : tensor<64x512xf32>
  }
  return %r : tensor<64x512xf32>
}
