func.func @wrong_result_shape(%x: tensor<4x8xf32>) -> tensor<8xf32> {
  %0 = tfc.reduce_sum %x dims [1] : tensor<4x8xf32> -> tensor<8xf32>
  return %0 : tensor<8xf32>
}
