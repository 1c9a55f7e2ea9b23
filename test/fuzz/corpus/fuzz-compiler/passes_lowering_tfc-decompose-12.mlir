func.func @reductions_kept(%x: tensor<2x3x4xf32>) -> (tensor<2xf32>, tensor<4xf32>) {
  %0 = tfc.reduce_sum %x dims [1, 2] : tensor<2x3x4xf32> -> tensor<2xf32>
  %1 = tfc.reduce_sum %x dims [0, 1] : tensor<2x3x4xf32> -> tensor<4xf32>
  return %0, %1 : tensor<2xf32>, tensor<4xf32>
}
