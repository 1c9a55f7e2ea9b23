func.func @loss(%a: tensor<4xf32> {tfc.param = "a"}, %b: tensor<4xf32> {tfc.state = "b"}) -> (tensor<4xf32> {tfc.update = "a"}, tensor<4xf32> {tfc.update = "b"}) {
  return %b, %a : tensor<4xf32>, tensor<4xf32>
}
