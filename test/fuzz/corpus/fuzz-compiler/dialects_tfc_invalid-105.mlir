func.func @layer_norm_eps_inf(%x: tensor<4x8xf32>) {
  %y, %m, %r = tfc.layer_norm %x eps 0x7FF0000000000000 : (tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x1xf32>, tensor<4x1xf32>)
  return
}
