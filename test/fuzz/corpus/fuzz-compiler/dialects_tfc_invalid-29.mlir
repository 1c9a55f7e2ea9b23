func.func @reshape_dtype(%x: tensor<4x8xf32>) -> tensor<32xf16> {
  %0 = tfc.reshape %x : tensor<4x8xf32> -> tensor<32xf16>
  return %0 : tensor<32xf16>
}
