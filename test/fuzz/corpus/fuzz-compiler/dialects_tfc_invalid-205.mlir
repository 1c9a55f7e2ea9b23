func.func @rms_norm_grad_rstd(%dy: tensor<4x8xf32>, %x: tensor<4x8xf32>, %s: tensor<4x8xf32>) {
  %dx = tfc.rms_norm_grad %dy, %x, %s : (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  return
}
