func.func @layer_norm_grad_input_type(%dy: tensor<4x8xf32>, %x: tensor<4x8xf32>, %s: tensor<4x1xf32>) {
  %dx = tfc.layer_norm_grad_input %dy, %x, %s, %s : (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x1xf32>, tensor<4x1xf32>) -> tensor<4x8xf64>
  return
}
