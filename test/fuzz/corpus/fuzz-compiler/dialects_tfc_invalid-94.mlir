func.func @embedding_table_rank(%t: tensor<256xf32>, %ids: tensor<4xi64>) {
  %0 = "tfc.embedding"(%t, %ids) : (tensor<256xf32>, tensor<4xi64>) -> tensor<4xf32>
  return
}
