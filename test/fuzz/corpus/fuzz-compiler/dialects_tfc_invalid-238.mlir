func.func @sgd_missing_buffer(%p: tensor<16xf32>, %lr: tensor<f32>, %step: tensor<i64>) {
  %0 = tfc.sgd %p, %p, %lr, %step momentum 9.0e-01 : tensor<16xf32>, tensor<16xf32>, tensor<f32>
  return
}
