func.func @concat_dtype(%a: tensor<4xf32>, %b: tensor<4xf16>) -> tensor<8xf32> {
  %0 = tfc.concat %a, %b dim 0 : tensor<4xf32>, tensor<4xf16> -> tensor<8xf32>
  return %0 : tensor<8xf32>
}
