func.func @adam_beta2(%p: tensor<16xf32>, %lr: tensor<f32>, %step: tensor<i64>) {
  %0:3 = tfc.adam %p, %p, %p, %p, %lr, %step beta2 -5.0e-01 : tensor<16xf32>, tensor<16xf32>, tensor<f32>
  return
}
