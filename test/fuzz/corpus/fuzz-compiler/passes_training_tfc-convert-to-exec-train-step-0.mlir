func.func @train_step(%p: tensor<4xf32> {tfc.param = "p"}, %m: tensor<4xf32> {tfc.state = "m"},
                      %s: tensor<4xf32> {tfc.state = "s"}, %g: tensor<4xf32> {tfc.input = "g"})
    -> (tensor<4xf32> {tfc.update = "p"}, tensor<4xf32> {tfc.output = "norm"},
        tensor<4xf32> {tfc.update = "m"}, tensor<4xf32> {tfc.update = "s"}) {
  %new = tfc.fusion pointwise (%a = %p : tensor<4xf32>, %b = %g : tensor<4xf32>) -> tensor<4xf32> {
    %d = tfc.sub %a, %b : tensor<4xf32>, tensor<4xf32>
    tfc.yield %d : tensor<4xf32>
  }
  %norm = tfc.fusion pointwise (%a = %new : tensor<4xf32>) -> tensor<4xf32> {
    %e = tfc.abs %a : tensor<4xf32>
    tfc.yield %e : tensor<4xf32>
  }
  return %new, %norm, %p, %s : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}
