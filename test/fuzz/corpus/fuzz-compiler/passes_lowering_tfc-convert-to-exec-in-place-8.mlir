func.func @train_step(%p: tensor<4xf32> {tfc.param = "p"}) -> (tensor<4xf32> {tfc.update = "p"}) {
  %new = tfc.fusion pointwise (%a = %p : tensor<4xf32>, %b = %p : tensor<4xf32>) -> tensor<4xf32> {
    %d = tfc.mul %a, %b : tensor<4xf32>, tensor<4xf32>
    tfc.yield %d : tensor<4xf32>
  }
  return %new : tensor<4xf32>
}
