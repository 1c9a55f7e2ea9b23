func.func @layer_norm_rank_zero(%x: tensor<4x8xf32>) {
  %y, %m, %r = tfc.layer_norm %x normalized_rank 0 : (tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>)
  return
}
