func.func @gather(%table: tensor<256x128xf32>, %ids: tensor<16xi64>, %pos: tensor<16x128xf32>) -> tensor<16x128xf32> {
  %r = tfc.fusion gather (%t = %table : tensor<256x128xf32>, %i = %ids : tensor<16xi64>, %p = %pos : tensor<16x128xf32>) -> tensor<16x128xf32> {
    %e = tfc.embedding %t, %i : tensor<256x128xf32>, tensor<16xi64> -> tensor<16x128xf32>
    %0 = tfc.add %e, %p : tensor<16x128xf32>, tensor<16x128xf32>
    tfc.yield %0 : tensor<16x128xf32>
  }
  return %r : tensor<16x128xf32>
}
