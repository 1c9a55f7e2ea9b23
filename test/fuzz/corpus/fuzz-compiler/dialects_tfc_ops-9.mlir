func.func @reshape_scalar(%x: tensor<1x1xbf16>) -> tensor<bf16> {
  %0 = tfc.reshape %x : tensor<1x1xbf16> -> tensor<bf16>
  return %0 : tensor<bf16>
}
