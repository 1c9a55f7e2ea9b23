func.func @attention(%q: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %0 = tfc.attention %q, %q, %q : tensor<8x16xf32>, tensor<8x16xf32>, tensor<8x16xf32> -> tensor<8x16xf32>
  return %0 : tensor<8x16xf32>
}
