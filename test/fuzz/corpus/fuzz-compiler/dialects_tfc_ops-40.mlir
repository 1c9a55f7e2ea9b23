func.func @layer_norm_bf16(%x: tensor<8x32xbf16>) -> (tensor<8x32xbf16>, tensor<8x1xf32>) {
  %y, %mean, %rstd = tfc.layer_norm %x eps 1.000000e-05 : (tensor<8x32xbf16>) -> (tensor<8x32xbf16>, tensor<8x1xf32>, tensor<8x1xf32>)
  return %y, %rstd : tensor<8x32xbf16>, tensor<8x1xf32>
}
