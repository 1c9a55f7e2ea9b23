func.func @embedding_grad_shape(%dy: tensor<4x8xf32>, %ids: tensor<2x2xi64>) {
  %t = tfc.embedding_grad %dy, %ids : tensor<4x8xf32>, tensor<2x2xi64> -> tensor<16x8xf32>
  return
}
