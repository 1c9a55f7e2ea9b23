func.func @convert_shape(%x: tensor<4x8xf32>) {
  %0 = tfc.convert %x : tensor<4x8xf32> -> tensor<8x4xbf16>
  return
}
