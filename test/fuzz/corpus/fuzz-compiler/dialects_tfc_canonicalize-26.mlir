func.func @broadcast_broadcast(%x: tensor<128xf32>) -> tensor<16x64x128xf32> {
  %0 = tfc.broadcast_to %x : tensor<128xf32> -> tensor<64x128xf32>
  %1 = tfc.broadcast_to %0 : tensor<64x128xf32> -> tensor<16x64x128xf32>
  return %1 : tensor<16x64x128xf32>
}
