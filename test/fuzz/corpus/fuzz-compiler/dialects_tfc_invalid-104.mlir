func.func @layer_norm_eps_zero(%x: tensor<4x8xf32>) {
  %y, %m, %r = tfc.layer_norm %x eps 0.0 : (tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x1xf32>, tensor<4x1xf32>)
  return
}
