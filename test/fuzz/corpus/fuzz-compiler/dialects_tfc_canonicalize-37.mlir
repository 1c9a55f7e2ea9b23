func.func @sum_of_singleton(%x: tensor<4x1xf32>) -> tensor<4x1xf32> {
  %0 = tfc.reduce_sum %x dims [1] keepdim : tensor<4x1xf32> -> tensor<4x1xf32>
  return %0 : tensor<4x1xf32>
}
