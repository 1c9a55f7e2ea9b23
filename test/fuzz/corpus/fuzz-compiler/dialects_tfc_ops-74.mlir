func.func @activation_grads(%dy: tensor<16x64x512xf32>, %x: tensor<16x64x512xf32>) -> tensor<16x64x512xf32> {
  %0 = tfc.gelu_grad %dy, %x approximate tanh : tensor<16x64x512xf32>
  %1 = tfc.gelu_grad %0, %x approximate none : tensor<16x64x512xf32>
  %2 = tfc.silu_grad %1, %x : tensor<16x64x512xf32>
  return %2 : tensor<16x64x512xf32>
}
