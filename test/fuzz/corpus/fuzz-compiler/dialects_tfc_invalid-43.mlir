func.func @slice_step_zero(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = tfc.slice %x [0, 0] to [4, 8] step [1, 0] : tensor<4x8xf32> -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}
