func.func @concat_shape(%a: tensor<4x2xf32>, %b: tensor<3x2xf32>) -> tensor<4x4xf32> {
  %0 = tfc.concat %a, %b dim 1 : tensor<4x2xf32>, tensor<3x2xf32> -> tensor<4x4xf32>
  return %0 : tensor<4x4xf32>
}
