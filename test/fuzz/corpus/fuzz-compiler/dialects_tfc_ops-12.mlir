func.func @slice(%x: tensor<16x64x384xf32>) -> tensor<16x64x128xf32> {
  %0 = tfc.slice %x [0, 0, 128] to [16, 64, 256] : tensor<16x64x384xf32> -> tensor<16x64x128xf32>
  return %0 : tensor<16x64x128xf32>
}
