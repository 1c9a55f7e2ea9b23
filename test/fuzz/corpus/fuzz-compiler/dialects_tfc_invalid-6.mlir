func.func @duplicate(%a: tensor<4xf32> {tfc.param = "fc.weight"}, %b: tensor<4xf32> {tfc.param = "fc.bias"}, %c: tensor<4xf32> {tfc.input = "fc.weight"}) {
  return
}
