func.func @slice_step(%x: tensor<8x8xf32>) -> (tensor<4x8xf32>, tensor<3x0xf32>) {
  %0 = tfc.slice %x [0, 0] to [8, 8] step [2, 1] : tensor<8x8xf32> -> tensor<4x8xf32>
  %1 = tfc.slice %x [1, 5] to [8, 5] step [3, 2] : tensor<8x8xf32> -> tensor<3x0xf32>
  return %0, %1 : tensor<4x8xf32>, tensor<3x0xf32>
}
