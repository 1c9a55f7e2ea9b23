func.func @binary_dtype_mismatch(%x: tensor<4xf32>, %y: tensor<4xbf16>) {
  %0 = tfc.mul %x, %y : tensor<4xf32>, tensor<4xbf16>
  return
}
