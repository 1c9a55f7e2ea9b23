func.func @softmax_middle_dim(%x: tensor<2x3x4xf32>) -> tensor<2x3x4xf32> {
  %0 = tfc.softmax %x dim 1 : tensor<2x3x4xf32>
  return %0 : tensor<2x3x4xf32>
}
