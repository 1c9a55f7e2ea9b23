func.func @slice_negative_start(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = tfc.slice %x [0, -1] to [4, 7] : tensor<4x8xf32> -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}
