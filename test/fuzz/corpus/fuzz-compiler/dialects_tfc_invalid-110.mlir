func.func @rms_norm_eps(%x: tensor<4x8xf32>) {
  %y, %r = tfc.rms_norm %x eps -1.0e-05 : (tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x1xf32>)
  return
}
