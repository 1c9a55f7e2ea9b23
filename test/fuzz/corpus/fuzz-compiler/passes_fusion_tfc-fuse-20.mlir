func.func @one_optimizer_launch(%p: tensor<128x64xf32>, %g1: tensor<128x64xf32>, %g2: tensor<128x64xf32>, %m: tensor<128x64xf32>, %v: tensor<128x64xf32>, %q: tensor<7xf32>, %h: tensor<7xf32>, %n: tensor<7xf32>, %w: tensor<7xf32>, %lr: tensor<f32>, %step: tensor<i64>) -> (tensor<128x64xf32>, tensor<128x64xf32>, tensor<128x64xf32>, tensor<7xf32>, tensor<7xf32>, tensor<7xf32>) {
  %g = tfc.add %g1, %g2 : tensor<128x64xf32>, tensor<128x64xf32>
  %p1, %m1, %v1 = tfc.adamw %p, %g, %m, %v, %lr, %step : tensor<128x64xf32>, tensor<128x64xf32>, tensor<f32>
  %q1, %n1, %w1 = tfc.adamw %q, %h, %n, %w, %lr, %step : tensor<7xf32>, tensor<7xf32>, tensor<f32>
  return %p1, %m1, %v1, %q1, %n1, %w1 : tensor<128x64xf32>, tensor<128x64xf32>, tensor<128x64xf32>, tensor<7xf32>, tensor<7xf32>, tensor<7xf32>
}
