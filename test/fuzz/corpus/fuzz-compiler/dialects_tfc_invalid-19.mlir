func.func @compare_bad_direction(%x: tensor<4xf32>) {
  %0 = tfc.compare lessthan, %x, %x : tensor<4xf32>, tensor<4xf32>
  return
}
