func.func @adamw_grad_shape(%p: tensor<16xf32>, %g: tensor<8xf32>, %lr: tensor<f32>, %step: tensor<i64>) {
  %0:3 = tfc.adamw %p, %g, %p, %p, %lr, %step : tensor<16xf32>, tensor<8xf32>, tensor<f32>
  return
}
