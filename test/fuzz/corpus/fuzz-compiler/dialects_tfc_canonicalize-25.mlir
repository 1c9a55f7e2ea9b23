func.func @broadcast_splat() -> tensor<16x64x128xbf16> {
  %c = tfc.constant dense<1.0> : tensor<bf16>
  %0 = tfc.broadcast_to %c : tensor<bf16> -> tensor<16x64x128xbf16>
  return %0 : tensor<16x64x128xbf16>
}
