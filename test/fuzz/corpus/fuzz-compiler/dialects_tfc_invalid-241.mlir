func.func @pointwise_with_sgd(%p: tensor<16xf32>, %lr: tensor<f32>, %step: tensor<i64>) -> tensor<16xf32> {
  %r = tfc.fusion pointwise (%a = %p : tensor<16xf32>, %b = %lr : tensor<f32>, %c = %step : tensor<i64>) -> tensor<16xf32> {
    %0 = tfc.sgd %a, %a, %b, %c : tensor<16xf32>, tensor<16xf32>, tensor<f32>
    tfc.yield %0 : tensor<16xf32>
  }
  return %r : tensor<16xf32>
}
