func.func @large_producer_kept(%a: tensor<4x8xf32>, %b: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<16xf32>) {
  %x = tfc.add %a, %b : tensor<4x8xf32>, tensor<4x8xf32>
  %0 = tfc.softmax %x dim -1 : tensor<4x8xf32>
  %v = tfc.reshape %x : tensor<4x8xf32> -> tensor<2x16xf32>
  %1 = tfc.reduce_sum %v dims [0] : tensor<2x16xf32> -> tensor<16xf32>
  return %0, %1 : tensor<4x8xf32>, tensor<16xf32>
}
