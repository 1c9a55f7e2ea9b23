func.func @layer_norm_grad_stats(%dy: tensor<4x8xbf16>, %x: tensor<4x8xbf16>, %s: tensor<4x1xbf16>) {
  %dx = tfc.layer_norm_grad %dy, %x, %s, %s : (tensor<4x8xbf16>, tensor<4x8xbf16>, tensor<4x1xbf16>, tensor<4x1xbf16>) -> tensor<4x8xbf16>
  return
}
