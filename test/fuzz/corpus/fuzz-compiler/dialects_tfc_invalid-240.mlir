func.func @sgd_buffer_type(%p: tensor<16xf32>, %b: tensor<16xf64>, %lr: tensor<f32>, %step: tensor<i64>) {
  %0:2 = "tfc.sgd"(%p, %p, %lr, %step, %b) {momentum = 9.0e-01 : f64} : (tensor<16xf32>, tensor<16xf32>, tensor<f32>, tensor<i64>, tensor<16xf64>) -> (tensor<16xf32>, tensor<16xf32>)
  return
}
