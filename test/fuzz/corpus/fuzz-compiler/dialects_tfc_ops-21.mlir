func.func @negative_dims(%x: tensor<2x3x4xf32>) -> tensor<2x1x1xf32> {
  %0 = tfc.reduce_sum %x dims [-1, -2] keepdim : tensor<2x3x4xf32> -> tensor<2x1x1xf32>
  return %0 : tensor<2x1x1xf32>
}
