func.func @rms_norm_rstd_shape(%x: tensor<4x8xf32>) {
  %y, %r = tfc.rms_norm %x : (tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4xf32>)
  return
}
