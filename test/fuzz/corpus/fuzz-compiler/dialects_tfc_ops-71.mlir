func.func @layer_norm_grad_no_weight(%dy: tensor<8x4x32xbf16>, %x: tensor<8x4x32xbf16>, %mean: tensor<8x1x1xf32>, %rstd: tensor<8x1x1xf32>) -> tensor<8x4x32xbf16> {
  %dx = tfc.layer_norm_grad %dy, %x, %mean, %rstd normalized_rank 2 : (tensor<8x4x32xbf16>, tensor<8x4x32xbf16>, tensor<8x1x1xf32>, tensor<8x1x1xf32>) -> tensor<8x4x32xbf16>
  return %dx : tensor<8x4x32xbf16>
}
