func.func @log_softmax_dim(%x: tensor<4x8xf32>) {
  %0 = tfc.log_softmax %x dim -3 : tensor<4x8xf32>
  return
}
