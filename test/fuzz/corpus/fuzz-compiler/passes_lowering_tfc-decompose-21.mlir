func.func @softmax_grad_dim0(%dy: tensor<6x4xf32>, %y: tensor<6x4xf32>) -> tensor<6x4xf32> {
  %0 = tfc.softmax_grad %dy, %y dim 0 : tensor<6x4xf32>
  return %0 : tensor<6x4xf32>
}
