func.func @reduce_max_dims(%x: tensor<4x8x16xf32>) -> tensor<8xf32> {
  %0 = tfc.reduce_max %x dims [0, 2] : tensor<4x8x16xf32> -> tensor<8xf32>
  return %0 : tensor<8xf32>
}
