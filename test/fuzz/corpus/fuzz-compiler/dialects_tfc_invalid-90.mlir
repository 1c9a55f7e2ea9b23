func.func @bf16_to_f16(%a: tensor<4x16xbf16>, %b: tensor<16x8xbf16>) {
  %0 = tfc.matmul %a, %b : tensor<4x16xbf16>, tensor<16x8xbf16> -> tensor<4x8xf16>
  return
}
