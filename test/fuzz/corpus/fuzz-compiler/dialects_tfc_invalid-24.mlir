func.func @select_not_broadcastable(%c: tensor<5xi1>, %x: tensor<4xf32>) {
  %0 = tfc.select %c, %x, %x : tensor<5xi1>, tensor<4xf32>, tensor<4xf32>
  return
}
