func.func @train_step(%p: tensor<4xf32> {tfc.param = "p"}, %g: tensor<4xf32> {tfc.input = "g"})
    -> (tensor<4xf32> {tfc.update = "p"}) {
  %new = tfc.fusion pointwise (%a = %p : tensor<4xf32>, %b = %g : tensor<4xf32>) -> tensor<4xf32> {
    %d = tfc.sub %a, %b : tensor<4xf32>, tensor<4xf32>
    tfc.yield %d : tensor<4xf32>
  }
  return %new : tensor<4xf32>
}
