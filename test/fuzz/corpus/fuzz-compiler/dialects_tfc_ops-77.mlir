func.func @adamw(%p: tensor<128x64xf32>, %g: tensor<128x64xbf16>, %m: tensor<128x64xf32>, %v: tensor<128x64xf32>, %lr: tensor<f32>, %step: tensor<i64>) -> (tensor<128x64xf32>, tensor<128x64xf32>, tensor<128x64xf32>) {
  %p1, %m1, %v1 = tfc.adamw %p, %g, %m, %v, %lr, %step : tensor<128x64xf32>, tensor<128x64xbf16>, tensor<f32>
  %p2, %m2, %v2 = tfc.adamw %p1, %g, %m1, %v1, %lr, %step beta1 8.000000e-01 beta2 9.500000e-01 eps 1.000000e-06 weight_decay 1.000000e-01 maximize : tensor<128x64xf32>, tensor<128x64xbf16>, tensor<f32>
  return %p2, %m2, %v2 : tensor<128x64xf32>, tensor<128x64xf32>, tensor<128x64xf32>
}
