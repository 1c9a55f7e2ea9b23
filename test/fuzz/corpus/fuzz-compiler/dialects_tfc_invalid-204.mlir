func.func @layer_norm_grad_results(%dy: tensor<4x8xf32>, %x: tensor<4x8xf32>, %s: tensor<4x1xf32>, %w: tensor<8xf32>) {
  %dx = tfc.layer_norm_grad %dy, %x, %s, %s weight %w : (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x1xf32>, tensor<4x1xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  return
}
