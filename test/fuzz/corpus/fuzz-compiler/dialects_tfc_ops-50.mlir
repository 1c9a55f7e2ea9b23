func.func @attention_masks(%q: tensor<2x4x8x16xbf16>, %pad: tensor<2x1x1x8xi1>, %bias: tensor<8x8xbf16>) -> (tensor<2x4x8x16xbf16>, tensor<2x4x8x16xbf16>) {
  %o = tfc.attention %q, %q, %q mask %pad : tensor<2x4x8x16xbf16>, tensor<2x4x8x16xbf16>, tensor<2x4x8x16xbf16>, tensor<2x1x1x8xi1> -> tensor<2x4x8x16xbf16>
  %o2 = tfc.attention %q, %q, %q causal mask %bias scale 2.500000e-01 : tensor<2x4x8x16xbf16>, tensor<2x4x8x16xbf16>, tensor<2x4x8x16xbf16>, tensor<8x8xbf16> -> tensor<2x4x8x16xbf16>
  return %o, %o2 : tensor<2x4x8x16xbf16>, tensor<2x4x8x16xbf16>
}
