func.func @optimizer(%p: tensor<16xf32>, %g: tensor<16xf32>, %m: tensor<16xf32>, %v: tensor<16xf32>, %lr: tensor<f32>, %step: tensor<i64>) -> (tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>) {
  %p1, %m1, %v1 = tfc.adamw %p, %g, %m, %v, %lr, %step : tensor<16xf32>, tensor<16xf32>, tensor<f32>
  %q = tfc.sgd %p1, %g, %lr, %step : tensor<16xf32>, tensor<16xf32>, tensor<f32>
  return %p1, %m1, %v1, %q : tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>
}
