func.func @softmax_last_dim(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = tfc.softmax %x dim 1 : tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}
