func.func @reduce_max_keepdim(%x: tensor<2x3x4x5xi32>) -> tensor<1x3x1x1xi32> {
  %0 = tfc.reduce_max %x dims [0, 2, 3] keepdim : tensor<2x3x4x5xi32> -> tensor<1x3x1x1xi32>
  return %0 : tensor<1x3x1x1xi32>
}
