func.func @embedding_grad_rank(%dy: tensor<4x8xf32>, %ids: tensor<4xi64>) {
  %t = tfc.embedding_grad %dy, %ids : tensor<4x8xf32>, tensor<4xi64> -> tensor<8xf32>
  return
}
