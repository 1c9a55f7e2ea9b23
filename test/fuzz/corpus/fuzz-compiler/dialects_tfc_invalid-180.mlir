func.func @gemm_with_softmax(%x: tensor<16x128xf32>, %w: tensor<64x128xf32>) -> tensor<16x64xf32> {
  %r = tfc.fusion gemm (%a = %x : tensor<16x128xf32>, %b = %w : tensor<64x128xf32>) -> tensor<16x64xf32> {
    %0 = tfc.matmul %a, %b transpose_b : tensor<16x128xf32>, tensor<64x128xf32> -> tensor<16x64xf32>
    %1 = tfc.softmax %0 dim -1 : tensor<16x64xf32>
    tfc.yield %1 : tensor<16x64xf32>
  }
  return %r : tensor<16x64xf32>
}
