func.func @loss(%x: tensor<4xf32> {tfc.param = "x"}) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}
