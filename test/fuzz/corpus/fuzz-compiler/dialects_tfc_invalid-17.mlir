func.func @binary_bool(%x: tensor<4xi1>) {
  %0 = tfc.maximum %x, %x : tensor<4xi1>, tensor<4xi1>
  return
}
