func.func @adamw_moment_type(%p: tensor<16xf32>, %m: tensor<16xbf16>, %lr: tensor<f32>, %step: tensor<i64>) {
  %0:3 = "tfc.adamw"(%p, %p, %m, %p, %lr, %step) : (tensor<16xf32>, tensor<16xf32>, tensor<16xbf16>, tensor<16xf32>, tensor<f32>, tensor<i64>) -> (tensor<16xf32>, tensor<16xf32>, tensor<16xf32>)
  return
}
