func.func @singleton_without_keepdim(%x: tensor<4x1xf32>) -> tensor<4xf32> {
  %0 = tfc.reduce_sum %x dims [1] : tensor<4x1xf32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
