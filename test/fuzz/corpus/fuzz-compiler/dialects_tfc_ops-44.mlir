func.func @rms_norm_plain(%x: tensor<2x8x16xf16>) -> tensor<2x8x16xf16> {
  %y, %rstd = tfc.rms_norm %x normalized_rank 2 eps 1.000000e-05 : (tensor<2x8x16xf16>) -> (tensor<2x8x16xf16>, tensor<2x1x1xf32>)
  return %y : tensor<2x8x16xf16>
}
