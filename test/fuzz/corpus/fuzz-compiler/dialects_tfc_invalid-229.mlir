func.func @adamw_weight_decay(%p: tensor<16xf32>, %lr: tensor<f32>, %step: tensor<i64>) {
  %0:3 = tfc.adamw %p, %p, %p, %p, %lr, %step weight_decay 0x7FF0000000000000 : tensor<16xf32>, tensor<16xf32>, tensor<f32>
  return
}
