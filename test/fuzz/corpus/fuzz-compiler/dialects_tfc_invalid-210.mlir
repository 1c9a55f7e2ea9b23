func.func @rms_norm_grad_input_weight(%dy: tensor<4x8xf32>, %x: tensor<4x8xf32>, %s: tensor<4x1xf32>, %w: tensor<4xf32>) {
  %dx = tfc.rms_norm_grad_input %dy, %x, %s weight %w : (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x1xf32>, tensor<4xf32>) -> tensor<4x8xf32>
  return
}
