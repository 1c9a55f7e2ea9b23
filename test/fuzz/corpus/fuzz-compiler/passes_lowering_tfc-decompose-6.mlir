func.func @log_softmax_first_dim(%x: tensor<5x7xf16>) -> tensor<5x7xf16> {
  %0 = tfc.log_softmax %x dim -2 : tensor<5x7xf16>
  return %0 : tensor<5x7xf16>
}
