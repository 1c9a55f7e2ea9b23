func.func @gather_with_reduction(%t: tensor<256x128xf32>, %ids: tensor<16xi64>) -> tensor<16xf32> {
  %r = tfc.fusion gather (%a = %t : tensor<256x128xf32>, %i = %ids : tensor<16xi64>) -> tensor<16xf32> {
    %0 = tfc.embedding %a, %i : tensor<256x128xf32>, tensor<16xi64> -> tensor<16x128xf32>
    %1 = tfc.reduce_sum %0 dims [1] : tensor<16x128xf32> -> tensor<16xf32>
    tfc.yield %1 : tensor<16xf32>
  }
  return %r : tensor<16xf32>
}
