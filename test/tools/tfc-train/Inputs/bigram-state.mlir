// bigram.mlir with model state, as the frontend imports a training-mode
// batch norm: running statistics of the embeddings (tfc.state arguments)
// whose new values the loss returns after it ({tfc.update}).
func.func @loss(%wte: tensor<256x16xf32> {tfc.param = "wte.weight"},
                %ln_w: tensor<16xf32> {tfc.param = "ln_f.weight"},
                %ln_b: tensor<16xf32> {tfc.param = "ln_f.bias"},
                %head: tensor<256x16xf32> {tfc.param = "lm_head.weight"},
                %head_b: tensor<256xf32> {tfc.param = "lm_head.bias"},
                %rm: tensor<16xf32> {tfc.state = "bn.running_mean"},
                %rv: tensor<16xf32> {tfc.state = "bn.running_var"},
                %tokens: tensor<4x8xi64> {tfc.input = "tokens"},
                %targets: tensor<4x8xi64> {tfc.input = "targets"})
    -> (tensor<f32>, tensor<16xf32> {tfc.update = "bn.running_mean"},
        tensor<16xf32> {tfc.update = "bn.running_var"}) {
  %emb = tfc.embedding %wte, %tokens : tensor<256x16xf32>, tensor<4x8xi64> -> tensor<4x8x16xf32>
  %x, %mean, %rstd = tfc.layer_norm %emb weight %ln_w bias %ln_b eps 1.000000e-05 : (tensor<4x8x16xf32>, tensor<16xf32>, tensor<16xf32>) -> (tensor<4x8x16xf32>, tensor<4x8x1xf32>, tensor<4x8x1xf32>)
  %mm = tfc.matmul %x, %head transpose_b : tensor<4x8x16xf32>, tensor<256x16xf32> -> tensor<4x8x256xf32>
  %logits = tfc.add %mm, %head_b : tensor<4x8x256xf32>, tensor<256xf32>
  %flat = tfc.reshape %logits : tensor<4x8x256xf32> -> tensor<32x256xf32>
  %t = tfc.reshape %targets : tensor<4x8xi64> -> tensor<32xi64>
  %loss = tfc.cross_entropy %flat, %t : tensor<32x256xf32>, tensor<32xi64> -> tensor<f32>
  %keep = tfc.constant dense<0.9> : tensor<f32>
  %take = tfc.constant dense<0.1> : tensor<f32>
  %m = tfc.reduce_mean %emb dims [0, 1] : tensor<4x8x16xf32> -> tensor<16xf32>
  %rm_k = tfc.mul %rm, %keep : tensor<16xf32>, tensor<f32>
  %m_t = tfc.mul %m, %take : tensor<16xf32>, tensor<f32>
  %rm_new = tfc.add %rm_k, %m_t : tensor<16xf32>, tensor<16xf32>
  %sq = tfc.mul %emb, %emb : tensor<4x8x16xf32>, tensor<4x8x16xf32>
  %v = tfc.reduce_mean %sq dims [0, 1] : tensor<4x8x16xf32> -> tensor<16xf32>
  %rv_k = tfc.mul %rv, %keep : tensor<16xf32>, tensor<f32>
  %v_t = tfc.mul %v, %take : tensor<16xf32>, tensor<f32>
  %rv_new = tfc.add %rv_k, %v_t : tensor<16xf32>, tensor<16xf32>
  return %loss, %rm_new, %rv_new : tensor<f32>, tensor<16xf32>, tensor<16xf32>
}
