func.func @row_output_size(%x: tensor<16x128xf32>, %w: tensor<128xbf16>) -> (tensor<16x128xf32>, tensor<128xf32>) {
  %r:2 = tfc.fusion row_reduction (%a = %x : tensor<16x128xf32>, %c = %w : tensor<128xbf16>) -> (tensor<16x128xf32>, tensor<128xf32>) {
    %w32 = tfc.convert %c : tensor<128xbf16> -> tensor<128xf32>
    %y, %m, %s = tfc.layer_norm %a weight %w32 : (tensor<16x128xf32>, tensor<128xf32>) -> (tensor<16x128xf32>, tensor<16x1xf32>, tensor<16x1xf32>)
    tfc.yield %y, %w32 : tensor<16x128xf32>, tensor<128xf32>
  }
  return %r#0, %r#1 : tensor<16x128xf32>, tensor<128xf32>
}
