func.func @select_value_dtypes(%c: tensor<4xi1>, %x: tensor<4xf32>, %y: tensor<4xf16>) {
  %0 = tfc.select %c, %x, %y : tensor<4xi1>, tensor<4xf32>, tensor<4xf16>
  return
}
