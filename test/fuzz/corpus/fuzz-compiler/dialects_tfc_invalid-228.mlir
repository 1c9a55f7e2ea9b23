func.func @adam_eps(%p: tensor<16xf32>, %lr: tensor<f32>, %step: tensor<i64>) {
  %0:3 = tfc.adam %p, %p, %p, %p, %lr, %step eps -1.0 : tensor<16xf32>, tensor<16xf32>, tensor<f32>
  return
}
