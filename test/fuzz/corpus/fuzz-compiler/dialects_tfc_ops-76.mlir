func.func @embedding_grad(%dy: tensor<16x64x128xf32>, %ids: tensor<16x64xi64>) -> tensor<256x128xf32> {
  %0 = tfc.embedding_grad %dy, %ids : tensor<16x64x128xf32>, tensor<16x64xi64> -> tensor<256x128xf32>
  return %0 : tensor<256x128xf32>
}
