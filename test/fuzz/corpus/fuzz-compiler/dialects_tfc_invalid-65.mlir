func.func @duplicate_negative_dim(%x: tensor<4x8xf32>) -> tensor<4xf32> {
  %0 = tfc.reduce_max %x dims [1, -1] : tensor<4x8xf32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
