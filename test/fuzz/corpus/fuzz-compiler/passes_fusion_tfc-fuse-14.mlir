func.func @dependent_moves(%x: tensor<4x4xf32>, %w: tensor<4x4xf32>) -> (tensor<4x4xf32>, tensor<4xf32>) {
  %0 = tfc.softmax %x dim -1 : tensor<4x4xf32>
  %1 = tfc.matmul %0, %w : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
  %2 = tfc.reduce_sum %x dims [1] : tensor<4x4xf32> -> tensor<4xf32>
  return %1, %2 : tensor<4x4xf32>, tensor<4xf32>
}
