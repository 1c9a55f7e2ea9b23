func.func @arg_count(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
  %r = "tfc.fusion"(%x, %y) <{kind = #tfc<kernel_kind pointwise>}> ({
  ^bb0(%a: tensor<4xf32>):
    %0 = tfc.exp %a : tensor<4xf32>
    tfc.yield %0 : tensor<4xf32>
  }) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}
