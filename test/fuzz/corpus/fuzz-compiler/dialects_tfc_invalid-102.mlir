func.func @layer_norm_weight_shape(%x: tensor<4x8xf32>, %w: tensor<4xf32>) {
  %y, %m, %r = tfc.layer_norm %x weight %w : (tensor<4x8xf32>, tensor<4xf32>) -> (tensor<4x8xf32>, tensor<4x1xf32>, tensor<4x1xf32>)
  return
}
