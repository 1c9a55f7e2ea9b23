func.func @embedding(%table: tensor<256x128xf32>, %ids: tensor<16x64xi64>) -> tensor<16x64x128xf32> {
  %e = tfc.embedding %table, %ids : tensor<256x128xf32>, tensor<16x64xi64> -> tensor<16x64x128xf32>
  return %e : tensor<16x64x128xf32>
}
