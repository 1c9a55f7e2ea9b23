func.func @layer_norm_row_geometry(%x: tensor<16x4x32xf32>) -> tensor<16x4x32xf32> {
  %o = tfc.fusion row_reduction (%a = %x : tensor<16x4x32xf32>) -> tensor<16x4x32xf32> {
    %y, %m, %r = tfc.layer_norm %a normalized_rank 2 : (tensor<16x4x32xf32>) -> (tensor<16x4x32xf32>, tensor<16x1x1xf32>, tensor<16x1x1xf32>)
    %p = tfc.softmax %y dim -1 : tensor<16x4x32xf32>
    tfc.yield %p : tensor<16x4x32xf32>
  }
  return %o : tensor<16x4x32xf32>
}
