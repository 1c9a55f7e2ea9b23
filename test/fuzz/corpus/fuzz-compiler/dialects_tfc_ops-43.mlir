func.func @rms_norm(%x: tensor<16x64x128xf32>, %w: tensor<128xf32>) -> tensor<16x64x1xf32> {
  %y, %rstd = tfc.rms_norm %x weight %w eps 1.000000e-06 : (tensor<16x64x128xf32>, tensor<128xf32>) -> (tensor<16x64x128xf32>, tensor<16x64x1xf32>)
  return %rstd : tensor<16x64x1xf32>
}
