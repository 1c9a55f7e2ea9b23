func.func @rows_differ(%x: tensor<4x16xf32>) -> (tensor<4xf32>, tensor<64xf32>) {
  %0 = tfc.reduce_sum %x dims [1] : tensor<4x16xf32> -> tensor<4xf32>
  %r = tfc.reshape %x : tensor<4x16xf32> -> tensor<64xf32>
  %1 = tfc.softmax %r dim -1 : tensor<64xf32>
  return %0, %1 : tensor<4xf32>, tensor<64xf32>
}
