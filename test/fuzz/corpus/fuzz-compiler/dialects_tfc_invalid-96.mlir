func.func @embedding_ids_float(%t: tensor<256x8xf32>, %ids: tensor<4xf32>) {
  %0 = tfc.embedding %t, %ids : tensor<256x8xf32>, tensor<4xf32> -> tensor<4x8xf32>
  return
}
