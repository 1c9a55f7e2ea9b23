func.func @train_step(%p: tensor<4xf32> {tfc.param = "p"}, %q: tensor<2x2xf32> {tfc.param = "q"})
    -> (tensor<4xf32> {tfc.update = "p"}, tensor<4xf32> {tfc.output = "norm"}, tensor<2x2xf32> {tfc.update = "q"}) {
  %new = tfc.fusion pointwise (%a = %p : tensor<4xf32>) -> tensor<4xf32> {
    %n = tfc.neg %a : tensor<4xf32>
    tfc.yield %n : tensor<4xf32>
  }
  %norm = tfc.fusion pointwise (%a = %new : tensor<4xf32>) -> tensor<4xf32> {
    %r = tfc.abs %a : tensor<4xf32>
    tfc.yield %r : tensor<4xf32>
  }
  %qf = tfc.reshape %q : tensor<2x2xf32> -> tensor<4xf32>
  %qn = tfc.fusion pointwise (%a = %qf : tensor<4xf32>) -> tensor<4xf32> {
    %n = tfc.neg %a : tensor<4xf32>
    tfc.yield %n : tensor<4xf32>
  }
  %q2 = tfc.reshape %qn : tensor<4xf32> -> tensor<2x2xf32>
  return %new, %norm, %q2 : tensor<4xf32>, tensor<4xf32>, tensor<2x2xf32>
}
