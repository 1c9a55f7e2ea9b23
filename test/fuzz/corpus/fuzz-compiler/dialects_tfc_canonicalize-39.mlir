func.func @max_of_singleton(%x: tensor<1x8xi32>) -> tensor<1x8xi32> {
  %0 = tfc.reduce_max %x dims [0] keepdim : tensor<1x8xi32> -> tensor<1x8xi32>
  return %0 : tensor<1x8xi32>
}
