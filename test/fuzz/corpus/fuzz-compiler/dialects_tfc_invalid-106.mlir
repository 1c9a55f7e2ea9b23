func.func @layer_norm_stats_dtype(%x: tensor<4x8xbf16>) {
  %y, %m, %r = tfc.layer_norm %x : (tensor<4x8xbf16>) -> (tensor<4x8xbf16>, tensor<4x1xbf16>, tensor<4x1xbf16>)
  return
}
