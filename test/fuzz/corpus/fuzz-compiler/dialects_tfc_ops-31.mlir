func.func @f16_result(%p: tensor<16x4x64x64xf16>, %v: tensor<16x4x64x32xf16>) -> tensor<16x4x64x32xf16> {
  %0 = tfc.matmul %p, %v : tensor<16x4x64x64xf16>, tensor<16x4x64x32xf16> -> tensor<16x4x64x32xf16>
  return %0 : tensor<16x4x64x32xf16>
}
