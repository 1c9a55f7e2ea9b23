func.func @transpose_result(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = tfc.transpose %x, [1, 0] : tensor<4x8xf32> -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}
