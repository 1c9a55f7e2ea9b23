func.func @row_reduction(%x: tensor<16x64xf32>) -> (tensor<16x64xf32>, tensor<16xf32>) {
  %r:2 = tfc.fusion row_reduction (%a = %x : tensor<16x64xf32>) -> (tensor<16x64xf32>, tensor<16xf32>) {
    %0 = tfc.exp %a : tensor<16x64xf32>
    %1 = tfc.softmax %a dim -1 : tensor<16x64xf32>
    %2 = tfc.reduce_sum %0 dims [1] : tensor<16x64xf32> -> tensor<16xf32>
    tfc.yield %1, %2 : tensor<16x64xf32>, tensor<16xf32>
  }
  return %r#0, %r#1 : tensor<16x64xf32>, tensor<16xf32>
}
