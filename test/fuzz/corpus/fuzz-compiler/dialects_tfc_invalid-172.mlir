func.func @row_geometry_mismatch(%x: tensor<16x64xf32>, %y: tensor<4x8xf32>) -> (tensor<16x64xf32>, tensor<4xf32>) {
  %r:2 = tfc.fusion row_reduction (%a = %x : tensor<16x64xf32>, %b = %y : tensor<4x8xf32>) -> (tensor<16x64xf32>, tensor<4xf32>) {
    %p = tfc.softmax %a dim -1 : tensor<16x64xf32>
    %s = tfc.reduce_sum %b dims [1] : tensor<4x8xf32> -> tensor<4xf32>
    tfc.yield %p, %s : tensor<16x64xf32>, tensor<4xf32>
  }
  return %r#0, %r#1 : tensor<16x64xf32>, tensor<4xf32>
}
