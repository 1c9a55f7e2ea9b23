func.func @f32_to_bf16(%a: tensor<4x16xf32>, %b: tensor<16x8xf32>) {
  %0 = tfc.matmul %a, %b : tensor<4x16xf32>, tensor<16x8xf32> -> tensor<4x8xbf16>
  return
}
