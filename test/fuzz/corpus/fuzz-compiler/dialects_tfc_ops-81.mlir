func.func @adamw8bit(%p: tensor<64x128xf32>, %g: tensor<64x128xbf16>, %m: tensor<64x128xui8>, %ma: tensor<32xf32>, %v: tensor<64x128xui8>, %va: tensor<32xf32>, %mb: tensor<128xf32>, %lr: tensor<f32>, %step: tensor<i64>) -> (tensor<64x128xf32>, tensor<64x128xui8>, tensor<32xf32>, tensor<64x128xui8>, tensor<32xf32>, tensor<64x128xf32>) {
  %p1, %m1, %ma1, %v1, %va1 = tfc.adamw8bit %p, %g, %m, %ma, %v, %va, %lr, %step : tensor<64x128xf32>, tensor<64x128xbf16>, tensor<64x128xui8>, tensor<32xf32>, tensor<f32>
  %p2, %m2, %mb2, %v2, %vb2 = tfc.adamw8bit %p, %g, %m, %mb, %v, %mb, %lr, %step beta1 8.000000e-01 beta2 9.500000e-01 eps 1.000000e-06 weight_decay 1.000000e-01 block_size 64 : tensor<64x128xf32>, tensor<64x128xbf16>, tensor<64x128xui8>, tensor<128xf32>, tensor<f32>
  return %p1, %m1, %ma1, %v1, %va1, %p2 : tensor<64x128xf32>, tensor<64x128xui8>, tensor<32xf32>, tensor<64x128xui8>, tensor<32xf32>, tensor<64x128xf32>
}
