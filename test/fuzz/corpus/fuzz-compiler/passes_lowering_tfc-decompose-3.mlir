func.func @masked_attention(%q: tensor<4x8x16xbf16>, %bias: tensor<8x8xbf16>, %pad: tensor<4x1x8xi1>) -> (tensor<4x8x16xbf16>, tensor<4x8x16xbf16>) {
  %0 = tfc.attention %q, %q, %q causal mask %bias : tensor<4x8x16xbf16>, tensor<4x8x16xbf16>, tensor<4x8x16xbf16>, tensor<8x8xbf16> -> tensor<4x8x16xbf16>
  %1 = tfc.attention %q, %q, %q mask %pad : tensor<4x8x16xbf16>, tensor<4x8x16xbf16>, tensor<4x8x16xbf16>, tensor<4x1x8xi1> -> tensor<4x8x16xbf16>
  return %0, %1 : tensor<4x8x16xbf16>, tensor<4x8x16xbf16>
}
