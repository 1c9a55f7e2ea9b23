func.func @adamw_beta1(%p: tensor<16xf32>, %lr: tensor<f32>, %step: tensor<i64>) {
  %0:3 = tfc.adamw %p, %p, %p, %p, %lr, %step beta1 1.0 : tensor<16xf32>, tensor<16xf32>, tensor<f32>
  return
}
