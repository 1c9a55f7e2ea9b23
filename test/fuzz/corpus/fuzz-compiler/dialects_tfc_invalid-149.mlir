func.func @arg_type(%x: tensor<4xf32>) -> tensor<4xf16> {
  %r = "tfc.fusion"(%x) <{kind = #tfc<kernel_kind pointwise>}> ({
  ^bb0(%a: tensor<4xf16>):
    %0 = tfc.exp %a : tensor<4xf16>
    tfc.yield %0 : tensor<4xf16>
  }) : (tensor<4xf32>) -> tensor<4xf16>
  return %r : tensor<4xf16>
}
