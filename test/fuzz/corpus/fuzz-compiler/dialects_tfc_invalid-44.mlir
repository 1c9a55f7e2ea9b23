func.func @slice_result(%x: tensor<8x8xf32>) -> tensor<3x8xf32> {
  %0 = tfc.slice %x [0, 0] to [7, 8] step [2, 1] : tensor<8x8xf32> -> tensor<3x8xf32>
  return %0 : tensor<3x8xf32>
}
