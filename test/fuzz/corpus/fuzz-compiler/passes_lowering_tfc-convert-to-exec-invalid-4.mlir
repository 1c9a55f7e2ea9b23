func.func @loss(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = tfc.neg %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}
