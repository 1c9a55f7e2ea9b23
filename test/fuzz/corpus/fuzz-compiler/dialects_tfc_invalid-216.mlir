func.func @cross_entropy_grad_rank(%d: tensor<f32>, %l: tensor<2x4x8xf32>, %y: tensor<2xi64>) {
  %dx = tfc.cross_entropy_grad %d, %l, %y : tensor<f32>, tensor<2x4x8xf32>, tensor<2xi64> -> tensor<2x4x8xf32>
  return
}
