func.func @layer_norm_bias_shape(%x: tensor<2x4x8xf32>, %b: tensor<8xf32>) {
  %y, %m, %r = tfc.layer_norm %x bias %b normalized_rank 2 : (tensor<2x4x8xf32>, tensor<8xf32>) -> (tensor<2x4x8xf32>, tensor<2x1x1xf32>, tensor<2x1x1xf32>)
  return
}
