func.func @scores(%x: tensor<4x8xf32> {tfc.input = "x"}) -> tensor<4x4xf32> {
  %0 = tfc.attention %x, %x, %x : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32> -> tensor<4x8xf32>
  %1 = tfc.matmul %0, %x transpose_b : tensor<4x8xf32>, tensor<4x8xf32> -> tensor<4x4xf32>
  return %1 : tensor<4x4xf32>
}
