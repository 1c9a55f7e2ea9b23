func.func @broadcast_dtype(%x: tensor<4xf32>) -> tensor<2x4xbf16> {
  %0 = tfc.broadcast_to %x : tensor<4xf32> -> tensor<2x4xbf16>
  return %0 : tensor<2x4xbf16>
}
