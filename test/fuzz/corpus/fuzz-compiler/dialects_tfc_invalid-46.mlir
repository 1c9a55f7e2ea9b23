func.func @concat_dim(%a: tensor<4x8xf32>) -> tensor<4x16xf32> {
  %0 = tfc.concat %a, %a dim 2 : tensor<4x8xf32>, tensor<4x8xf32> -> tensor<4x16xf32>
  return %0 : tensor<4x16xf32>
}
