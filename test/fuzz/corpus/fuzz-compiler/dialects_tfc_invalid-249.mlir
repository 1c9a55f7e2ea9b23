func.func @adamw8bit_eps(%p: tensor<300xf32>, %m: tensor<300xui8>, %ma: tensor<2xf32>, %lr: tensor<f32>, %step: tensor<i64>) {
  %0:5 = tfc.adamw8bit %p, %p, %m, %ma, %m, %ma, %lr, %step eps -1.0 : tensor<300xf32>, tensor<300xf32>, tensor<300xui8>, tensor<2xf32>, tensor<f32>
  return
}
