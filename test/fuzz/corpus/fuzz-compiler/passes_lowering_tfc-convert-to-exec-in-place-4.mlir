func.func @train_step(%p: tensor<4x4xf32> {tfc.param = "p"}, %q: tensor<1x4xf32> {tfc.param = "q"})
    -> (tensor<4x4xf32> {tfc.update = "p"}, tensor<1x4xf32> {tfc.update = "q"}) {
  %t = tfc.fusion pointwise (%a = %p : tensor<4x4xf32>) -> tensor<4x4xf32> {
    %tr = tfc.transpose %a, [1, 0] : tensor<4x4xf32> -> tensor<4x4xf32>
    %s = tfc.add %a, %tr : tensor<4x4xf32>, tensor<4x4xf32>
    tfc.yield %s : tensor<4x4xf32>
  }
  %u = tfc.fusion column_reduction (%a = %q : tensor<1x4xf32>, %b = %t : tensor<4x4xf32>) -> tensor<1x4xf32> {
    %r = tfc.reduce_sum %b dims [0] keepdim : tensor<4x4xf32> -> tensor<1x4xf32>
    %s = tfc.add %a, %r : tensor<1x4xf32>, tensor<1x4xf32>
    tfc.yield %s : tensor<1x4xf32>
  }
  return %t, %u : tensor<4x4xf32>, tensor<1x4xf32>
}
