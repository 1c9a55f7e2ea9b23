func.func @broadcast_to(%x: tensor<128xf32>, %m: tensor<64x1xi1>) -> (tensor<16x64x128xf32>, tensor<2x64x8xi1>) {
  %0 = tfc.broadcast_to %x : tensor<128xf32> -> tensor<16x64x128xf32>
  %1 = tfc.broadcast_to %m : tensor<64x1xi1> -> tensor<2x64x8xi1>
  return %0, %1 : tensor<16x64x128xf32>, tensor<2x64x8xi1>
}
