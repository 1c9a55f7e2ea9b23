func.func @embedding_result(%t: tensor<256x8xf32>, %ids: tensor<4xi64>) {
  %0 = tfc.embedding %t, %ids : tensor<256x8xf32>, tensor<4xi64> -> tensor<4x16xf32>
  return
}
