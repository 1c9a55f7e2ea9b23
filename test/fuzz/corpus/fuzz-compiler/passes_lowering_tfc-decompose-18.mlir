func.func @embedding_grad(%dy: tensor<4x9x16xbf16>, %ids: tensor<4x9xi32>) -> tensor<50x16xbf16> {
  %0 = tfc.embedding_grad %dy, %ids : tensor<4x9x16xbf16>, tensor<4x9xi32> -> tensor<50x16xbf16>
  return %0 : tensor<50x16xbf16>
}
