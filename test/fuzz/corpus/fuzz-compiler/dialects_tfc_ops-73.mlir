func.func @softmax_grads(%dy: tensor<16x4x64x64xf32>, %y: tensor<16x4x64x64xf32>, %dl: tensor<1024x256xf32>, %l: tensor<1024x256xf32>) -> (tensor<16x4x64x64xf32>, tensor<1024x256xf32>) {
  %0 = tfc.softmax_grad %dy, %y dim -1 : tensor<16x4x64x64xf32>
  %1 = tfc.softmax_grad %0, %y dim 1 : tensor<16x4x64x64xf32>
  %2 = tfc.log_softmax_grad %dl, %l dim -1 : tensor<1024x256xf32>
  return %1, %2 : tensor<16x4x64x64xf32>, tensor<1024x256xf32>
}
