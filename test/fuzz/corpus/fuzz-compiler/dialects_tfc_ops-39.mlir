func.func @layer_norm_affine(%x: tensor<16x64x128xf32>, %w: tensor<128xf32>, %b: tensor<128xf32>) -> tensor<16x64x128xf32> {
  %y, %mean, %rstd = tfc.layer_norm %x weight %w bias %b eps 1.000000e-05 : (tensor<16x64x128xf32>, tensor<128xf32>, tensor<128xf32>) -> (tensor<16x64x128xf32>, tensor<16x64x1xf32>, tensor<16x64x1xf32>)
  return %y : tensor<16x64x128xf32>
}
