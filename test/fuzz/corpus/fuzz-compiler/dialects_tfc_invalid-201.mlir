func.func @layer_norm_grad_dy_type(%dy: tensor<4x8xbf16>, %x: tensor<4x8xf32>, %s: tensor<4x1xf32>) {
  %dx = tfc.layer_norm_grad %dy, %x, %s, %s : (tensor<4x8xbf16>, tensor<4x8xf32>, tensor<4x1xf32>, tensor<4x1xf32>) -> tensor<4x8xf32>
  return
}
