func.func @dim_too_large(%x: tensor<4x8xf32>) -> tensor<4xf32> {
  %0 = tfc.reduce_sum %x dims [2] : tensor<4x8xf32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
