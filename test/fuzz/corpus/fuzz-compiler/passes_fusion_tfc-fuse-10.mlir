func.func @column_siblings(%dy: tensor<4x8x16xf32>, %x: tensor<4x8x16xf32>, %mean: tensor<4x8x1xf32>, %rstd: tensor<4x8x1xf32>) -> (tensor<16xbf16>, tensor<16xf32>) {
  %0 = tfc.sub %x, %mean : tensor<4x8x16xf32>, tensor<4x8x1xf32>
  %xhat = tfc.mul %0, %rstd : tensor<4x8x16xf32>, tensor<4x8x1xf32>
  %1 = tfc.mul %dy, %xhat : tensor<4x8x16xf32>, tensor<4x8x16xf32>
  %dgamma = tfc.reduce_sum %1 dims [0, 1] : tensor<4x8x16xf32> -> tensor<16xf32>
  %dg16 = tfc.convert %dgamma : tensor<16xf32> -> tensor<16xbf16>
  %dbeta = tfc.reduce_sum %dy dims [0, 1] : tensor<4x8x16xf32> -> tensor<16xf32>
  return %dg16, %dbeta : tensor<16xbf16>, tensor<16xf32>
}
