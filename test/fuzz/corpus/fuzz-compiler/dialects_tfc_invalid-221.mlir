func.func @cross_entropy_grad_result(%d: tensor<f32>, %l: tensor<4x8xbf16>, %y: tensor<4xi64>) {
  %dx = tfc.cross_entropy_grad %d, %l, %y : tensor<f32>, tensor<4x8xbf16>, tensor<4xi64> -> tensor<4x8xf32>
  return
}
