func.func @reduction_not_duplicated(%x: tensor<4x16xf32>) -> (tensor<4x16xf32>, tensor<4x1xf32>) {
  %m = tfc.reduce_max %x dims [1] keepdim : tensor<4x16xf32> -> tensor<4x1xf32>
  %0 = tfc.sub %x, %m : tensor<4x16xf32>, tensor<4x1xf32>
  %1 = tfc.exp %m : tensor<4x1xf32>
  return %0, %1 : tensor<4x16xf32>, tensor<4x1xf32>
}
