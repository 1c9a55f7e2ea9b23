func.func @reshape_reshape(%x: tensor<16x64x128xf32>) -> tensor<16x8192xf32> {
  %0 = tfc.reshape %x : tensor<16x64x128xf32> -> tensor<1024x128xf32>
  %1 = tfc.reshape %0 : tensor<1024x128xf32> -> tensor<16x8192xf32>
  return %1 : tensor<16x8192xf32>
}
