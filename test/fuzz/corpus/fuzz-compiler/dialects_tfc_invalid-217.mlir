func.func @cross_entropy_grad_labels(%d: tensor<f32>, %l: tensor<4x8xf32>, %y: tensor<3xi64>) {
  %dx = tfc.cross_entropy_grad %d, %l, %y : tensor<f32>, tensor<4x8xf32>, tensor<3xi64> -> tensor<4x8xf32>
  return
}
