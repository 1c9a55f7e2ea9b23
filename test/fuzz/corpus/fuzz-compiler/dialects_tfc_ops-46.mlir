func.func @log_softmax(%x: tensor<1024x256xf32>) -> tensor<1024x256xf32> {
  %l = tfc.log_softmax %x dim 1 : tensor<1024x256xf32>
  %m = tfc.log_softmax %l dim -2 : tensor<1024x256xf32>
  return %m : tensor<1024x256xf32>
}
