func.func @rows_chained(%x: tensor<4x16xf32>) -> tensor<4x16xf32> {
  %m = tfc.reduce_max %x dims [1] keepdim : tensor<4x16xf32> -> tensor<4x1xf32>
  %0 = tfc.sub %x, %m : tensor<4x16xf32>, tensor<4x1xf32>
  %1 = tfc.exp %0 : tensor<4x16xf32>
  %s = tfc.reduce_sum %1 dims [1] keepdim : tensor<4x16xf32> -> tensor<4x1xf32>
  %2 = tfc.div %1, %s : tensor<4x16xf32>, tensor<4x1xf32>
  %y, %mean, %rstd = tfc.layer_norm %2 : (tensor<4x16xf32>) -> (tensor<4x16xf32>, tensor<4x1xf32>, tensor<4x1xf32>)
  return %y : tensor<4x16xf32>
}
