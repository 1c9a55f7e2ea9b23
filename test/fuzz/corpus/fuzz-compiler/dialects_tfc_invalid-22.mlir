func.func @select_condition_dtype(%c: tensor<4xf32>, %x: tensor<4xf32>) {
  %0 = tfc.select %c, %x, %x : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
  return
}
