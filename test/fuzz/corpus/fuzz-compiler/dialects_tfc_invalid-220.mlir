func.func @cross_entropy_grad_ignore(%d: tensor<f32>, %l: tensor<4x8xf32>, %y: tensor<4xi32>) {
  %dx = tfc.cross_entropy_grad %d, %l, %y ignore_index 4294967296 : tensor<f32>, tensor<4x8xf32>, tensor<4xi32> -> tensor<4x8xf32>
  return
}
