tfcrt.kernel @k0 multi_tensor (tensor<64xf32>, tensor<64xf32>, tensor<f32>, tensor<i64>) -> tensor<64xf32> {
^bb0(%p: tensor<64xf32>, %g: tensor<64xf32>, %lr: tensor<f32>, %t: tensor<i64>):
  %0 = tfc.sgd %p, %g, %lr, %t : tensor<64xf32>, tensor<64xf32>, tensor<f32>
  tfcrt.yield %0 : tensor<64xf32>
}
tfcrt.kernel @k1 multi_tensor (tensor<64xf32>) -> tensor<f32> {
^bb0(%g: tensor<64xf32>):
  %0 = tfc.reduce_sum %g dims [0] : tensor<64xf32> -> tensor<f32>
  tfcrt.yield %0 : tensor<f32>
}
tfcrt.kernel @k2 block_quantized (tensor<256xf32>, tensor<256xf32>, tensor<256xui8>, tensor<2xf32>, tensor<f32>, tensor<i64>) -> (tensor<256xf32>, tensor<256xui8>, tensor<2xf32>, tensor<256xui8>, tensor<2xf32>) {
^bb0(%p: tensor<256xf32>, %g: tensor<256xf32>, %q: tensor<256xui8>, %s: tensor<2xf32>, %lr: tensor<f32>, %t: tensor<i64>):
  %p1, %m1, %ma1, %v1, %va1 = tfc.adamw8bit %p, %g, %q, %s, %q, %s, %lr, %t block_size 128 : tensor<256xf32>, tensor<256xf32>, tensor<256xui8>, tensor<2xf32>, tensor<f32>
  tfcrt.yield %p1, %m1, %ma1, %v1, %va1 : tensor<256xf32>, tensor<256xui8>, tensor<2xf32>, tensor<256xui8>, tensor<2xf32>
}
