func.func @reduce_mean_keepdim(%x: tensor<4x8xf32>) -> tensor<4x1xf32> {
  %0 = tfc.reduce_mean %x dims [1] keepdim : tensor<4x8xf32> -> tensor<4x1xf32>
  return %0 : tensor<4x1xf32>
}
