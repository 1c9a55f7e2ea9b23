func.func @layer_norm_mixed_dtype(%x: tensor<4x16xbf16>, %w: tensor<16xf32>, %b: tensor<16xf32>) -> tensor<4x16xbf16> {
  %y, %mean, %rstd = tfc.layer_norm %x weight %w bias %b eps 1.000000e-03 : (tensor<4x16xbf16>, tensor<16xf32>, tensor<16xf32>) -> (tensor<4x16xbf16>, tensor<4x1xf32>, tensor<4x1xf32>)
  return %y : tensor<4x16xbf16>
}
