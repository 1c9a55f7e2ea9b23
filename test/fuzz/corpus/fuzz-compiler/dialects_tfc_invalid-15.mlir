func.func @binary_not_broadcastable(%x: tensor<4x8xf32>, %y: tensor<4xf32>) {
  %0 = tfc.add %x, %y : tensor<4x8xf32>, tensor<4xf32>
  return
}
