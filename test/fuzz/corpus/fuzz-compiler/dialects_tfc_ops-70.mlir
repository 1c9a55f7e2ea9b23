func.func @layer_norm_grad(%dy: tensor<16x64x128xf32>, %x: tensor<16x64x128xf32>, %mean: tensor<16x64x1xf32>, %rstd: tensor<16x64x1xf32>, %w: tensor<128xf32>) -> (tensor<16x64x128xf32>, tensor<128xf32>, tensor<128xf32>) {
  %dx, %dw, %db = tfc.layer_norm_grad %dy, %x, %mean, %rstd weight %w : (tensor<16x64x128xf32>, tensor<16x64x128xf32>, tensor<16x64x1xf32>, tensor<16x64x1xf32>, tensor<128xf32>) -> (tensor<16x64x128xf32>, tensor<128xf32>, tensor<128xf32>)
  return %dx, %dw, %db : tensor<16x64x128xf32>, tensor<128xf32>, tensor<128xf32>
}
