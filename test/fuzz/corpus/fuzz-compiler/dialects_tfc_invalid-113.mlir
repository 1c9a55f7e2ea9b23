func.func @softmax_int(%x: tensor<4x8xi32>) {
  %0 = tfc.softmax %x dim 1 : tensor<4x8xi32>
  return
}
