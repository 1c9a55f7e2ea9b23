func.func @integers(%x: tensor<8x32xi64>, %y: tensor<8xi32>) -> (tensor<8xi64>, tensor<i32>) {
  %0 = tfc.reduce_sum %x dims [1] : tensor<8x32xi64> -> tensor<8xi64>
  %1 = tfc.reduce_max %y dims [0] : tensor<8xi32> -> tensor<i32>
  return %0, %1 : tensor<8xi64>, tensor<i32>
}
