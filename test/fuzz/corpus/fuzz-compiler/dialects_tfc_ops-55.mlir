func.func @row_reduction_kernel(%x: tensor<16x64x128xf32>, %r: tensor<16x64x128xf32>, %w: tensor<128xf32>, %seed: tensor<i64>, %offset: tensor<i64>) -> tensor<16x64x128xf32> {
  %o = tfc.fusion row_reduction (%a = %x : tensor<16x64x128xf32>, %b = %r : tensor<16x64x128xf32>, %c = %w : tensor<128xf32>, %s = %seed : tensor<i64>, %t = %offset : tensor<i64>) -> tensor<16x64x128xf32> {
    %d = tfc.dropout %a, %s, %t p 1.000000e-01 : tensor<16x64x128xf32>
    %h = tfc.add %d, %b : tensor<16x64x128xf32>, tensor<16x64x128xf32>
    %y, %mean, %rstd = tfc.layer_norm %h weight %c : (tensor<16x64x128xf32>, tensor<128xf32>) -> (tensor<16x64x128xf32>, tensor<16x64x1xf32>, tensor<16x64x1xf32>)
    %p = tfc.softmax %y dim -1 : tensor<16x64x128xf32>
    %z, %zr = tfc.rms_norm %p : (tensor<16x64x128xf32>) -> (tensor<16x64x128xf32>, tensor<16x64x1xf32>)
    tfc.yield %z : tensor<16x64x128xf32>
  }
  return %o : tensor<16x64x128xf32>
}
