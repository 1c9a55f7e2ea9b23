func.func @slice_reversed(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = tfc.slice %x [3, 0] to [1, 8] : tensor<4x8xf32> -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}
