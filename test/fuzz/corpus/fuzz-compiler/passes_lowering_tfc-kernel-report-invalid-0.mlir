module {
  func.func @loss(%x: tensor<4xf32> {tfc.input = "x"}) -> tensor<4xf32> {
    %0 = tfc.relu %x : tensor<4xf32>
    return %0 : tensor<4xf32>
  }
}
