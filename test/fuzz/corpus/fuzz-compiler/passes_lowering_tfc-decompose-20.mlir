func.func @embedding_grad_full_iota(%dy: tensor<1x8x4xf32>) -> tensor<8x4xf32> {
  %ids = tfc.iota dim 0 : tensor<8xi64>
  %r = tfc.reshape %ids : tensor<8xi64> -> tensor<1x8xi64>
  %0 = tfc.embedding_grad %dy, %r : tensor<1x8x4xf32>, tensor<1x8xi64> -> tensor<8x4xf32>
  return %0 : tensor<8x4xf32>
}
