// bigram.mlir with width 12, which sm_90 pads for bf16 tensor cores (K 12 -> 16):
// the 16-bit copy of lm_head.weight is state "lm_head.weight.bf16.256x16" there,
// "lm_head.weight.bf16" on the host. A token embedding,
// a LayerNorm, an output projection with bias and the mean cross-entropy.
func.func @loss(%wte: tensor<256x12xf32> {tfc.param = "wte.weight"},
                %ln_w: tensor<12xf32> {tfc.param = "ln_f.weight"},
                %ln_b: tensor<12xf32> {tfc.param = "ln_f.bias"},
                %head: tensor<256x12xf32> {tfc.param = "lm_head.weight"},
                %head_b: tensor<256xf32> {tfc.param = "lm_head.bias"},
                %tokens: tensor<4x8xi64> {tfc.input = "tokens"},
                %targets: tensor<4x8xi64> {tfc.input = "targets"}) -> tensor<f32> {
  %emb = tfc.embedding %wte, %tokens : tensor<256x12xf32>, tensor<4x8xi64> -> tensor<4x8x12xf32>
  %x, %mean, %rstd = tfc.layer_norm %emb weight %ln_w bias %ln_b eps 1.000000e-05 : (tensor<4x8x12xf32>, tensor<12xf32>, tensor<12xf32>) -> (tensor<4x8x12xf32>, tensor<4x8x1xf32>, tensor<4x8x1xf32>)
  %mm = tfc.matmul %x, %head transpose_b : tensor<4x8x12xf32>, tensor<256x12xf32> -> tensor<4x8x256xf32>
  %logits = tfc.add %mm, %head_b : tensor<4x8x256xf32>, tensor<256xf32>
  %flat = tfc.reshape %logits : tensor<4x8x256xf32> -> tensor<32x256xf32>
  %t = tfc.reshape %targets : tensor<4x8xi64> -> tensor<32xi64>
  %loss = tfc.cross_entropy %flat, %t : tensor<32x256xf32>, tensor<32xi64> -> tensor<f32>
  return %loss : tensor<f32>
}
