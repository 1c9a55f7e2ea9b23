func.func @dtype_mismatch(%a: tensor<4x16xbf16>, %b: tensor<16x8xf32>) {
  %0 = tfc.matmul %a, %b : tensor<4x16xbf16>, tensor<16x8xf32> -> tensor<4x8xf32>
  return
}
