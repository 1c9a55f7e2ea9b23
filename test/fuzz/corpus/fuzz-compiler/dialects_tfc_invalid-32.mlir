func.func @transpose_repeat(%x: tensor<4x8xf32>) -> tensor<4x4xf32> {
  %0 = tfc.transpose %x, [0, 0] : tensor<4x8xf32> -> tensor<4x4xf32>
  return %0 : tensor<4x4xf32>
}
