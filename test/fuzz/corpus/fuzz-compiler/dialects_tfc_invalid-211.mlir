func.func @softmax_grad_dim(%dy: tensor<4x8xf32>, %y: tensor<4x8xf32>) {
  %dx = tfc.softmax_grad %dy, %y dim 2 : tensor<4x8xf32>
  return
}
