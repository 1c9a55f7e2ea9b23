func.func @multi_result(%x: tensor<16x128xf32>) -> (tensor<16x128xbf16>, tensor<16x128xf32>) {
  %r:2 = tfc.fusion pointwise (%a = %x : tensor<16x128xf32>) -> (tensor<16x128xbf16>, tensor<16x128xf32>) {
    %two = tfc.constant dense<2.0> : tensor<f32>
    %0 = tfc.mul %a, %two : tensor<16x128xf32>, tensor<f32>
    %1 = tfc.convert %0 : tensor<16x128xf32> -> tensor<16x128xbf16>
    tfc.yield %1, %0 : tensor<16x128xbf16>, tensor<16x128xf32>
  } {kernel_name = "scale_cast"}
  return %r#0, %r#1 : tensor<16x128xbf16>, tensor<16x128xf32>
}
