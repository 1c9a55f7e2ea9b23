func.func @slice_limit(%x: tensor<4x8xf32>) -> tensor<4x9xf32> {
  %0 = tfc.slice %x [0, 0] to [4, 9] : tensor<4x8xf32> -> tensor<4x9xf32>
  return %0 : tensor<4x9xf32>
}
