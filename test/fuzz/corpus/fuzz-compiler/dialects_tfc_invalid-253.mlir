func.func @adamw8bit_codes_type(%p: tensor<300xf32>, %m: tensor<300xi32>, %ma: tensor<2xf32>, %lr: tensor<f32>, %step: tensor<i64>) {
  %0:5 = "tfc.adamw8bit"(%p, %p, %m, %ma, %m, %ma, %lr, %step) : (tensor<300xf32>, tensor<300xf32>, tensor<300xi32>, tensor<2xf32>, tensor<300xi32>, tensor<2xf32>, tensor<f32>, tensor<i64>) -> (tensor<300xf32>, tensor<300xi32>, tensor<2xf32>, tensor<300xi32>, tensor<2xf32>)
  return
}
