// A loss with no tfc.param argument: nothing to train.
func.func @loss(%w: tensor<256x16xf32> {tfc.input = "w"},
                %tokens: tensor<4x8xi64> {tfc.input = "tokens"},
                %targets: tensor<4x8xi64> {tfc.input = "targets"}) -> tensor<f32> {
  %emb = tfc.embedding %w, %tokens : tensor<256x16xf32>, tensor<4x8xi64> -> tensor<4x8x16xf32>
  %mm = tfc.matmul %emb, %w transpose_b : tensor<4x8x16xf32>, tensor<256x16xf32> -> tensor<4x8x256xf32>
  %flat = tfc.reshape %mm : tensor<4x8x256xf32> -> tensor<32x256xf32>
  %t = tfc.reshape %targets : tensor<4x8xi64> -> tensor<32xi64>
  %loss = tfc.cross_entropy %flat, %t : tensor<32x256xf32>, tensor<32xi64> -> tensor<f32>
  return %loss : tensor<f32>
}
