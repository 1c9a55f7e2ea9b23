func.func @reshape(%x: tensor<16x64x128xf32>) -> tensor<1024x128xf32> {
  %0 = tfc.reshape %x : tensor<16x64x128xf32> -> tensor<1024x128xf32>
  return %0 : tensor<1024x128xf32>
}
