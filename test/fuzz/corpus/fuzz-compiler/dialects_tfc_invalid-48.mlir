func.func @concat_rank(%a: tensor<4x2xf32>, %b: tensor<4xf32>) -> tensor<4x3xf32> {
  %0 = tfc.concat %a, %b dim 1 : tensor<4x2xf32>, tensor<4xf32> -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}
