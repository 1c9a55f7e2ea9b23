func.func @log_softmax_grad_dim(%dy: tensor<4x8xf32>, %y: tensor<4x8xf32>) {
  %dx = tfc.log_softmax_grad %dy, %y dim -3 : tensor<4x8xf32>
  return
}
