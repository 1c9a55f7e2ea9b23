func.func @adam_step_type(%p: tensor<16xf32>, %lr: tensor<f32>, %step: tensor<i32>) {
  %0:3 = "tfc.adam"(%p, %p, %p, %p, %lr, %step) : (tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<f32>, tensor<i32>) -> (tensor<16xf32>, tensor<16xf32>, tensor<16xf32>)
  return
}
