func.func @concat(%a: tensor<4x8xf32>, %b: tensor<4x2xf32>, %c: tensor<4x1xf32>) -> (tensor<4x10xf32>, tensor<4x11xf32>) {
  %0 = tfc.concat %a, %b dim 1 : tensor<4x8xf32>, tensor<4x2xf32> -> tensor<4x10xf32>
  %1 = tfc.concat %a, %b, %c dim -1 : tensor<4x8xf32>, tensor<4x2xf32>, tensor<4x1xf32> -> tensor<4x11xf32>
  return %0, %1 : tensor<4x10xf32>, tensor<4x11xf32>
}
