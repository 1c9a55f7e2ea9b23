func.func @train_step(%p: tensor<4xf32> {tfc.param = "p"}, %g: tensor<4xf32> {tfc.input = "g"},
                      %found: tensor<i1> {tfc.input = "found_inf"})
    -> (tensor<4xf32> {tfc.update = "p"}) {
  %new = tfc.fusion pointwise (%a = %p : tensor<4xf32>, %b = %g : tensor<4xf32>) -> tensor<4xf32> {
    %d = tfc.sub %a, %b : tensor<4xf32>, tensor<4xf32>
    tfc.yield %d : tensor<4xf32>
  }
  %kept = tfc.fusion pointwise (%c = %found : tensor<i1>, %a = %p : tensor<4xf32>, %b = %new : tensor<4xf32>) -> tensor<4xf32> {
    %s = tfc.select %c, %a, %b : tensor<i1>, tensor<4xf32>, tensor<4xf32>
    tfc.yield %s : tensor<4xf32>
  }
  return %kept : tensor<4xf32>
}
