func.func @gelu(%x: tensor<16x512xf16>) -> tensor<16x512xf16> {
  %0 = tfc.gelu %x : tensor<16x512xf16>
  %1 = tfc.gelu %0 approximate tanh : tensor<16x512xf16>
  return %1 : tensor<16x512xf16>
}
