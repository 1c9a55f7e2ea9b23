func.func @reduce_sum_split(%x: tensor<4x8x16xf32>) -> tensor<8xf32> {
  %0 = tfc.reduce_sum %x dims [0, -1] : tensor<4x8x16xf32> -> tensor<8xf32>
  return %0 : tensor<8xf32>
}
