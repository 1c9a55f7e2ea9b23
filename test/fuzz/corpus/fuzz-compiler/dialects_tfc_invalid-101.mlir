func.func @layer_norm_rank_too_big(%x: tensor<4x8xf32>) {
  %y, %m, %r = tfc.layer_norm %x normalized_rank 3 : (tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<1x1xf32>, tensor<1x1xf32>)
  return
}
