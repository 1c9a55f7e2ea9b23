func.func @softmax_not_last_dim_kernel(%x: tensor<16x64xf32>) -> tensor<16x64xf32> {
  %o = tfc.fusion row_reduction (%a = %x : tensor<16x64xf32>) -> tensor<16x64xf32> {
    %p = tfc.softmax %a dim 0 : tensor<16x64xf32>
    tfc.yield %p : tensor<16x64xf32>
  }
  return %o : tensor<16x64xf32>
}
