func.func @wrong_result_shape(%a: tensor<2x8x16xf32>, %b: tensor<16x4xf32>) {
  %0 = tfc.matmul %a, %b : tensor<2x8x16xf32>, tensor<16x4xf32> -> tensor<8x4xf32>
  return
}
