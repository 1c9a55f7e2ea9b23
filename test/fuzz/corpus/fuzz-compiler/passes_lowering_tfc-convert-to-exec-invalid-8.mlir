func.func @loss(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = tfc.fusion pointwise () -> tensor<3000000000x3000000000x3000000000xf32> {
    %c = tfc.constant dense<1.0> : tensor<3000000000x3000000000x3000000000xf32>
    tfc.yield %c : tensor<3000000000x3000000000x3000000000xf32>
  }
  return %x : tensor<4xf32>
}
