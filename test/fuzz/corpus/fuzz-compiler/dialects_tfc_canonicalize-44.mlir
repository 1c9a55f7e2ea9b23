func.func @embedding_of_full_iota(%t: tensor<64x32xf32>) -> tensor<64x32xf32> {
  %ids = tfc.iota dim 0 : tensor<64xi64>
  %0 = tfc.embedding %t, %ids : tensor<64x32xf32>, tensor<64xi64> -> tensor<64x32xf32>
  return %0 : tensor<64x32xf32>
}
