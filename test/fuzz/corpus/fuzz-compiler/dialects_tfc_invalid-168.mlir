func.func @composite(%q: tensor<2x4x8x16xf32>) -> tensor<2x4x8x16xf32> {
  %r = tfc.fusion row_reduction (%a = %q : tensor<2x4x8x16xf32>) -> tensor<2x4x8x16xf32> {
    %o = tfc.attention %a, %a, %a causal : tensor<2x4x8x16xf32>, tensor<2x4x8x16xf32>, tensor<2x4x8x16xf32> -> tensor<2x4x8x16xf32>
    tfc.yield %o : tensor<2x4x8x16xf32>
  }
  return %r : tensor<2x4x8x16xf32>
}
