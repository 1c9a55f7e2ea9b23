func.func @add_layer_norm(%x: tensor<16x128xf32>, %res: tensor<16x128xf32>, %w: tensor<128xf32>, %b: tensor<128xf32>) -> (tensor<16x128xf32>, tensor<16x128xf32>) {
  %r:2 = tfc.fusion row_reduction (%a = %x : tensor<16x128xf32>, %r0 = %res : tensor<16x128xf32>, %g = %w : tensor<128xf32>, %c = %b : tensor<128xf32>) -> (tensor<16x128xf32>, tensor<16x128xf32>) {
    %h = tfc.add %a, %r0 : tensor<16x128xf32>, tensor<16x128xf32>
    %y, %mean, %rstd = tfc.layer_norm %h weight %g bias %c eps 1.000000e-05 : (tensor<16x128xf32>, tensor<128xf32>, tensor<128xf32>) -> (tensor<16x128xf32>, tensor<16x1xf32>, tensor<16x1xf32>)
    tfc.yield %y, %h : tensor<16x128xf32>, tensor<16x128xf32>
  }
  return %r#0, %r#1 : tensor<16x128xf32>, tensor<16x128xf32>
}
