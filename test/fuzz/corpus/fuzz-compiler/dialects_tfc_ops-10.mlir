func.func @transpose(%x: tensor<16x64x4x32xf32>) -> tensor<16x4x64x32xf32> {
  %0 = tfc.transpose %x, [0, 2, 1, 3] : tensor<16x64x4x32xf32> -> tensor<16x4x64x32xf32>
  return %0 : tensor<16x4x64x32xf32>
}
