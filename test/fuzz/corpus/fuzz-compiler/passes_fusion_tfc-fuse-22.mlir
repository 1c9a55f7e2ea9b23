func.func @lone_tensor_sum(%y: tensor<512x300xf32>, %t: tensor<512x300xf32>) -> tensor<f32> {
  %d = tfc.sub %y, %t : tensor<512x300xf32>, tensor<512x300xf32>
  %sq = tfc.mul %d, %d : tensor<512x300xf32>, tensor<512x300xf32>
  %l = tfc.reduce_mean %sq dims [0, 1] : tensor<512x300xf32> -> tensor<f32>
  return %l : tensor<f32>
}
