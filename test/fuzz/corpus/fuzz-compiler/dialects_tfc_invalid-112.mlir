func.func @softmax_dim(%x: tensor<4x8xf32>) {
  %0 = tfc.softmax %x dim 2 : tensor<4x8xf32>
  return
}
