func.func @adamw_lr_rank(%p: tensor<16xf32>, %lr: tensor<1xf32>, %step: tensor<i64>) {
  %0:3 = tfc.adamw %p, %p, %p, %p, %lr, %step : tensor<16xf32>, tensor<16xf32>, tensor<1xf32>
  return
}
