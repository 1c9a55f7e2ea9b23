func.func @scores_bf16_to_f32(%q: tensor<16x4x64x32xbf16>, %k: tensor<16x4x64x32xbf16>) -> tensor<16x4x64x64xf32> {
  %0 = tfc.matmul %q, %k transpose_b : tensor<16x4x64x32xbf16>, tensor<16x4x64x32xbf16> -> tensor<16x4x64x64xf32>
  return %0 : tensor<16x4x64x64xf32>
}
