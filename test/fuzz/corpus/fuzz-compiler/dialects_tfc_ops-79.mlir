func.func @sgd(%p: tensor<64x32xf32>, %g: tensor<64x32xf32>, %b: tensor<64x32xf32>, %q: tensor<64xbf16>, %h: tensor<64xbf16>, %lr: tensor<f32>, %step: tensor<i64>) -> (tensor<64x32xf32>, tensor<64x32xf32>, tensor<64xbf16>) {
  %p1, %b1 = tfc.sgd %p, %g, %lr, %step momentum_buffer(%b : tensor<64x32xf32>) momentum 9.000000e-01 nesterov weight_decay 1.000000e-04 : tensor<64x32xf32>, tensor<64x32xf32>, tensor<f32>
  %q1 = tfc.sgd %q, %h, %lr, %step maximize : tensor<64xbf16>, tensor<64xbf16>, tensor<f32>
  %p2, %b2 = tfc.sgd %p1, %g, %lr, %step momentum_buffer(%b1 : tensor<64x32xf32>) momentum 5.000000e-01 dampening 1.000000e-01 : tensor<64x32xf32>, tensor<64x32xf32>, tensor<f32>
  return %p2, %b2, %q1 : tensor<64x32xf32>, tensor<64x32xf32>, tensor<64xbf16>
}
