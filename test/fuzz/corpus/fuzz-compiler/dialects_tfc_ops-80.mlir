func.func @multi_tensor_optimizer(%w: tensor<128xf32>, %g: tensor<128xf32>, %m: tensor<128xf32>, %v: tensor<128xf32>, %lr: tensor<f32>, %step: tensor<i64>) -> (tensor<128xf32>, tensor<128xf32>, tensor<128xf32>, tensor<128xbf16>) {
  %r:4 = tfc.fusion multi_tensor (%a = %w : tensor<128xf32>, %b = %g : tensor<128xf32>, %c = %m : tensor<128xf32>, %d = %v : tensor<128xf32>, %e = %lr : tensor<f32>, %f = %step : tensor<i64>) -> (tensor<128xf32>, tensor<128xf32>, tensor<128xf32>, tensor<128xbf16>) {
    %p1, %m1, %v1 = tfc.adamw %a, %b, %c, %d, %e, %f : tensor<128xf32>, tensor<128xf32>, tensor<f32>
    %h = tfc.convert %p1 : tensor<128xf32> -> tensor<128xbf16>
    tfc.yield %p1, %m1, %v1, %h : tensor<128xf32>, tensor<128xf32>, tensor<128xf32>, tensor<128xbf16>
  }
  return %r#0, %r#1, %r#2, %r#3 : tensor<128xf32>, tensor<128xf32>, tensor<128xf32>, tensor<128xbf16>
}
