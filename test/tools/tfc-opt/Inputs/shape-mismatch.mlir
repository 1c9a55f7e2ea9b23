func.func @f(%x: tensor<4x8xf32>, %y: tensor<3xf32>) -> tensor<4x8xf32> {
  %0 = tfc.add %x, %y : tensor<4x8xf32>, tensor<3xf32>
  return %0 : tensor<4x8xf32>
}
