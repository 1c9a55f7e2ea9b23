func.func @reduce_max_f16(%x: tensor<3x4x5xf16>) -> tensor<4xf16> {
  %0 = tfc.reduce_max %x dims [0, 2] : tensor<3x4x5xf16> -> tensor<4xf16>
  return %0 : tensor<4xf16>
}
