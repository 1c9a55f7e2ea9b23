func.func @slice_kept(%x: tensor<4x8xf32>) -> (tensor<4x4xf32>, tensor<2x8xf32>) {
  %0 = tfc.slice %x [0, 4] to [4, 8] : tensor<4x8xf32> -> tensor<4x4xf32>
  %1 = tfc.slice %x [0, 0] to [4, 8] step [2, 1] : tensor<4x8xf32> -> tensor<2x8xf32>
  return %0, %1 : tensor<4x4xf32>, tensor<2x8xf32>
}
