func.func @multi_tensor(%w0: tensor<128xf32>, %g0: tensor<128xf32>, %w1: tensor<64x32xf32>, %g1: tensor<64x32xf32>, %lr: tensor<f32>) -> (tensor<128xf32>, tensor<64x32xf32>) {
  %r:2 = tfc.fusion multi_tensor (%a = %w0 : tensor<128xf32>, %b = %g0 : tensor<128xf32>, %c = %w1 : tensor<64x32xf32>, %d = %g1 : tensor<64x32xf32>, %s = %lr : tensor<f32>) -> (tensor<128xf32>, tensor<64x32xf32>) {
    %0 = tfc.mul %b, %s : tensor<128xf32>, tensor<f32>
    %1 = tfc.sub %a, %0 : tensor<128xf32>, tensor<128xf32>
    %2 = tfc.mul %d, %s : tensor<64x32xf32>, tensor<f32>
    %3 = tfc.sub %c, %2 : tensor<64x32xf32>, tensor<64x32xf32>
    tfc.yield %1, %3 : tensor<128xf32>, tensor<64x32xf32>
  }
  return %r#0, %r#1 : tensor<128xf32>, tensor<64x32xf32>
}
