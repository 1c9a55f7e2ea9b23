func.func @sgd_grad_shape(%p: tensor<16xf32>, %g: tensor<4x4xf32>, %lr: tensor<f32>, %step: tensor<i64>) {
  %0 = tfc.sgd %p, %g, %lr, %step : tensor<16xf32>, tensor<4x4xf32>, tensor<f32>
  return
}
