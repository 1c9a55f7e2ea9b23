func.func @bf16_dropout_attention(%q: tensor<4x8x16xbf16>, %k: tensor<4x8x16xbf16>, %v: tensor<4x8x16xbf16>, %seed: tensor<i64>, %offset: tensor<i64>) -> tensor<4x8x16xbf16> {
  %0 = tfc.attention %q, %k, %v scale 0.125 dropout 0.1 seed %seed offset %offset : tensor<4x8x16xbf16>, tensor<4x8x16xbf16>, tensor<4x8x16xbf16> -> tensor<4x8x16xbf16>
  return %0 : tensor<4x8x16xbf16>
}
