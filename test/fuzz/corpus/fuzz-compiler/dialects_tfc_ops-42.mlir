func.func @layer_norm_rank2(%x: tensor<8x4x32xf64>, %b: tensor<4x32xf64>) -> tensor<8x1x1xf64> {
  %y, %mean, %rstd = tfc.layer_norm %x bias %b normalized_rank 2 : (tensor<8x4x32xf64>, tensor<4x32xf64>) -> (tensor<8x4x32xf64>, tensor<8x1x1xf64>, tensor<8x1x1xf64>)
  return %mean : tensor<8x1x1xf64>
}
