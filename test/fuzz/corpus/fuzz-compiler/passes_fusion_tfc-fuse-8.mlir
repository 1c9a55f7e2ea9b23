func.func @rows_siblings(%x: tensor<4x16xf32>) -> (tensor<4xf32>, tensor<4x16xf32>) {
  %0 = tfc.reduce_sum %x dims [1] : tensor<4x16xf32> -> tensor<4xf32>
  %1 = tfc.softmax %x dim -1 : tensor<4x16xf32>
  return %0, %1 : tensor<4xf32>, tensor<4x16xf32>
}
