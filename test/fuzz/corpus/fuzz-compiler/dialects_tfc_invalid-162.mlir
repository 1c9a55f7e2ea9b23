func.func @checkpoint_isolated(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
  %r = tfc.checkpoint (%a = %x : tensor<4xf32>) -> tensor<4xf32> {
    %0 = tfc.add %a, %y : tensor<4xf32>, tensor<4xf32>
    tfc.yield %0 : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}
