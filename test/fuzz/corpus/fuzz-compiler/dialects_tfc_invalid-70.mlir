func.func @sum_of_bools(%x: tensor<4x8xi1>) -> tensor<4xi1> {
  %0 = tfc.reduce_sum %x dims [1] : tensor<4x8xi1> -> tensor<4xi1>
  return %0 : tensor<4xi1>
}
