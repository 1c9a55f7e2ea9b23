func.func @adamw8bit_block_size(%p: tensor<300xf32>, %m: tensor<300xui8>, %ma: tensor<3xf32>, %lr: tensor<f32>, %step: tensor<i64>) {
  %0:5 = tfc.adamw8bit %p, %p, %m, %ma, %m, %ma, %lr, %step block_size 100 : tensor<300xf32>, tensor<300xf32>, tensor<300xui8>, tensor<3xf32>, tensor<f32>
  return
}
