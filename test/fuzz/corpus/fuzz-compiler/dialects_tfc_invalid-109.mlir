func.func @rms_norm_weight_shape(%x: tensor<4x8xf32>, %w: tensor<4x8xf32>) {
  %y, %r = tfc.rms_norm %x weight %w : (tensor<4x8xf32>, tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x1xf32>)
  return
}
