func.func @no_block(%x: tensor<4xf32>) -> tensor<4xf32> {
  %r = "tfc.fusion"(%x) <{kind = #tfc<kernel_kind pointwise>}> ({
  }) : (tensor<4xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}
