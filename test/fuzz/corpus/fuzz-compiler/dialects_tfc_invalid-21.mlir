func.func @compare_not_broadcastable(%x: tensor<3xf32>, %y: tensor<4xf32>) {
  %0 = tfc.compare eq, %x, %y : tensor<3xf32>, tensor<4xf32>
  return
}
