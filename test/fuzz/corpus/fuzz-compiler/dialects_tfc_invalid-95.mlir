func.func @embedding_table_int(%t: tensor<256x8xi32>, %ids: tensor<4xi64>) {
  %0 = tfc.embedding %t, %ids : tensor<256x8xi32>, tensor<4xi64> -> tensor<4x8xi32>
  return
}
