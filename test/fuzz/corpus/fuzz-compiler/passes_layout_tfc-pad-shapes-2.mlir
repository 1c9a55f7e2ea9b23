func.func @f32_and_batched(%q: tensor<2x3x33x25xf32> {tfc.input = "q"},
                           %k: tensor<2x3x33x25xf32> {tfc.input = "k"}) -> tensor<2x3x33x33xf32> {
  %s = tfc.matmul %q, %k transpose_b : tensor<2x3x33x25xf32>, tensor<2x3x33x25xf32> -> tensor<2x3x33x33xf32>
  return %s : tensor<2x3x33x33xf32>
}
