func.func @norm_grads(%dy: tensor<16x128xf32>, %x: tensor<16x128xf32>, %mean: tensor<16x1xf32>, %rstd: tensor<16x1xf32>, %w: tensor<128xbf16>) -> (tensor<16x128xf32>, tensor<128xbf16>) {
  %dx, %dw = tfc.rms_norm_grad %dy, %x, %rstd weight %w : (tensor<16x128xf32>, tensor<16x128xf32>, tensor<16x1xf32>, tensor<128xbf16>) -> (tensor<16x128xf32>, tensor<128xbf16>)
  %dx2 = tfc.rms_norm_grad %dx, %x, %rstd : (tensor<16x128xf32>, tensor<16x128xf32>, tensor<16x1xf32>) -> tensor<16x128xf32>
  %dx3 = tfc.layer_norm_grad_input %dx2, %x, %mean, %rstd weight %w : (tensor<16x128xf32>, tensor<16x128xf32>, tensor<16x1xf32>, tensor<16x1xf32>, tensor<128xbf16>) -> tensor<16x128xf32>
  %dx4 = tfc.rms_norm_grad_input %dx3, %x, %rstd : (tensor<16x128xf32>, tensor<16x128xf32>, tensor<16x1xf32>) -> tensor<16x128xf32>
  return %dx4, %dw : tensor<16x128xf32>, tensor<128xbf16>
}
