func.func @embedding_of_short_iota(%t: tensor<64x32xbf16>) -> tensor<10x32xbf16> {
  %ids = tfc.iota dim 0 : tensor<10xi32>
  %0 = tfc.embedding %t, %ids : tensor<64x32xbf16>, tensor<10xi32> -> tensor<10x32xbf16>
  return %0 : tensor<10x32xbf16>
}
