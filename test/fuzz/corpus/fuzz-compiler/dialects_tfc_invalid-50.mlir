func.func @concat_result(%a: tensor<4x2xf32>) -> tensor<4x2xf32> {
  %0 = tfc.concat %a, %a dim 0 : tensor<4x2xf32>, tensor<4x2xf32> -> tensor<4x2xf32>
  return %0 : tensor<4x2xf32>
}
