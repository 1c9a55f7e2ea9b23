func.func @rms_norm_grad(%dy: tensor<8x32xf32>, %x: tensor<8x32xf32>, %r: tensor<8x1xf32>, %w: tensor<32xbf16>) -> (tensor<8x32xf32>, tensor<32xbf16>) {
  %dx, %dw = tfc.rms_norm_grad %dy, %x, %r weight %w : (tensor<8x32xf32>, tensor<8x32xf32>, tensor<8x1xf32>, tensor<32xbf16>) -> (tensor<8x32xf32>, tensor<32xbf16>)
  return %dx, %dw : tensor<8x32xf32>, tensor<32xbf16>
}
