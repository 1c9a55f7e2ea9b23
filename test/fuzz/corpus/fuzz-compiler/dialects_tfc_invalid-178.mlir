func.func @gemm_without_gemm(%x: tensor<16x128xf32>) -> tensor<16x128xf32> {
  %r = tfc.fusion gemm (%a = %x : tensor<16x128xf32>) -> tensor<16x128xf32> {
    %0 = tfc.gelu %a : tensor<16x128xf32>
    tfc.yield %0 : tensor<16x128xf32>
  }
  return %r : tensor<16x128xf32>
}
