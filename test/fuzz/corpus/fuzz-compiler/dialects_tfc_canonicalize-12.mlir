func.func @select_fold(%x: tensor<4xf32>, %y: tensor<4xf32>, %c: tensor<4xi1>) -> (tensor<4xf32>, tensor<4xf32>) {
  %t = tfc.constant dense<true> : tensor<4xi1>
  %0 = tfc.select %t, %x, %y : tensor<4xi1>, tensor<4xf32>, tensor<4xf32>
  %1 = tfc.select %c, %y, %y : tensor<4xi1>, tensor<4xf32>, tensor<4xf32>
  return %0, %1 : tensor<4xf32>, tensor<4xf32>
}
