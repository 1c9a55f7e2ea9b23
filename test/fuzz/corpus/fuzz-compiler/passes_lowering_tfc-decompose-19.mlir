func.func @embedding_grad_iota(%dy: tensor<9x16xbf16>) -> tensor<50x16xbf16> {
  %ids = tfc.iota dim 0 : tensor<9xi32>
  %0 = tfc.embedding_grad %dy, %ids : tensor<9x16xbf16>, tensor<9xi32> -> tensor<50x16xbf16>
  return %0 : tensor<50x16xbf16>
}
