func.func @compare_dtype_mismatch(%x: tensor<4xf32>, %y: tensor<4xi32>) {
  %0 = tfc.compare lt, %x, %y : tensor<4xf32>, tensor<4xi32>
  return
}
