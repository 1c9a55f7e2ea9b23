func.func @embedding_grad_type(%dy: tensor<4x8xbf16>, %ids: tensor<4xi64>) {
  %t = tfc.embedding_grad %dy, %ids : tensor<4x8xbf16>, tensor<4xi64> -> tensor<16x8xf32>
  return
}
