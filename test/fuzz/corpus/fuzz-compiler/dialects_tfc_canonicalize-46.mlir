func.func @embedding_of_other_ids(%t: tensor<8x4xf32>) -> (tensor<2x8x4xf32>, tensor<9x4xf32>) {
  %ids = tfc.iota dim 1 : tensor<2x8xi64>
  %0 = tfc.embedding %t, %ids : tensor<8x4xf32>, tensor<2x8xi64> -> tensor<2x8x4xf32>
  %long = tfc.iota dim 0 : tensor<9xi64>
  %1 = tfc.embedding %t, %long : tensor<8x4xf32>, tensor<9xi64> -> tensor<9x4xf32>
  return %0, %1 : tensor<2x8x4xf32>, tensor<9x4xf32>
}
