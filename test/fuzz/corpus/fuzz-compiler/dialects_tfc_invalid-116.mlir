func.func @log_softmax_scalar(%x: tensor<f32>) {
  %0 = tfc.log_softmax %x dim 0 : tensor<f32>
  return
}
