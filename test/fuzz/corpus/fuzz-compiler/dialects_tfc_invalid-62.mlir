func.func @dim_too_small(%x: tensor<4x8xf32>) -> tensor<4xf32> {
  %0 = tfc.reduce_mean %x dims [-3] : tensor<4x8xf32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
