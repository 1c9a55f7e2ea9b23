func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = tfc.exp %x : tensor<4x
