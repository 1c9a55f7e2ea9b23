func.func @no_cycle_through_gemm(%x: tensor<4x4xf32>, %w: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %e = tfc.exp %x : tensor<4x4xf32>
  %m = tfc.matmul %e, %w : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
  %0 = tfc.add %e, %m : tensor<4x4xf32>, tensor<4x4xf32>
  %1 = tfc.relu %0 : tensor<4x4xf32>
  return %1 : tensor<4x4xf32>
}
