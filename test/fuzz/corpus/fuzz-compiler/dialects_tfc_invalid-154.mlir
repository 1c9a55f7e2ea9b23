func.func @two_blocks(%x: tensor<4xf32>) -> tensor<4xf32> {
  %r = "tfc.fusion"(%x) <{kind = #tfc<kernel_kind pointwise>}> ({
  ^bb0(%a: tensor<4xf32>):
    %0 = tfc.exp %a : tensor<4xf32>
    tfc.yield %0 : tensor<4xf32>
  ^bb1:
    %1 = tfc.exp %a : tensor<4xf32>
    tfc.yield %1 : tensor<4xf32>
  }) : (tensor<4xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}
