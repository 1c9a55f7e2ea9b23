tfcrt.kernel @k block_quantized (tensor<512xf32>, tensor<512xf32>, tensor<512xui8>, tensor<2xf32>, tensor<512xui8>, tensor<2xf32>, tensor<f32>, tensor<i64>) -> (tensor<512xf32>, tensor<512xui8>, tensor<2xf32>, tensor<512xui8>, tensor<2xf32>) in_place [1, -1, -1, -1, -1] {
^bb0(%p: tensor<512xf32>, %g: tensor<512xf32>, %m: tensor<512xui8>, %ma: tensor<2xf32>, %v: tensor<512xui8>, %va: tensor<2xf32>, %lr: tensor<f32>, %t: tensor<i64>):
  %0:5 = tfc.adamw8bit %p, %g, %m, %ma, %v, %va, %lr, %t : tensor<512xf32>, tensor<512xf32>, tensor<512xui8>, tensor<2xf32>, tensor<f32>
  tfcrt.yield %0#0, %0#1, %0#2, %0#3, %0#4 : tensor<512xf32>, tensor<512xui8>, tensor<2xf32>, tensor<512xui8>, tensor<2xf32>
}
