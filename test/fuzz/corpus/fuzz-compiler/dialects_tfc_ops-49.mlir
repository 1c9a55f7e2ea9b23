func.func @attention_all_options(%q: tensor<2x8x16xbf16>, %seed: tensor<i64>, %offset: tensor<i64>) -> tensor<2x8x16xbf16> {
  %o = tfc.attention %q, %q, %q causal scale 2.500000e-01 dropout 1.000000e-01 seed %seed offset %offset : tensor<2x8x16xbf16>, tensor<2x8x16xbf16>, tensor<2x8x16xbf16> -> tensor<2x8x16xbf16>
  return %o : tensor<2x8x16xbf16>
}
