func.func @sum_of_splat_kept() -> tensor<4xf32> {
  %c = tfc.constant dense<0.1> : tensor<4x8xf32>
  %0 = tfc.reduce_sum %c dims [1] : tensor<4x8xf32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
