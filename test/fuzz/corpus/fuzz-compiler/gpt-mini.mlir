// gpt-mini: a GPT-2-style decoder small enough to train on a laptop CPU.
// vocab 256, context 64, 2 layers, width 128, 4 heads of 32, MLP 512, batch 16;
// pre-LayerNorm blocks with causal self-attention and a GELU(tanh) MLP,
// residual connections, a final LayerNorm and an LM head tied to wte.
// Parameters (437760 floats) are named as in a PyTorch state dict;
// @loss returns the mean cross-entropy of next-token prediction over all
// 1024 positions.
func.func @loss(
    %wte_weight: tensor<256x128xf32> {tfc.param = "wte.weight"},
    %wpe_weight: tensor<64x128xf32> {tfc.param = "wpe.weight"},
    %h_0_ln_1_weight: tensor<128xf32> {tfc.param = "h.0.ln_1.weight"},
    %h_0_ln_1_bias: tensor<128xf32> {tfc.param = "h.0.ln_1.bias"},
    %h_0_attn_c_attn_weight: tensor<384x128xf32> {tfc.param = "h.0.attn.c_attn.weight"},
    %h_0_attn_c_attn_bias: tensor<384xf32> {tfc.param = "h.0.attn.c_attn.bias"},
    %h_0_attn_c_proj_weight: tensor<128x128xf32> {tfc.param = "h.0.attn.c_proj.weight"},
    %h_0_attn_c_proj_bias: tensor<128xf32> {tfc.param = "h.0.attn.c_proj.bias"},
    %h_0_ln_2_weight: tensor<128xf32> {tfc.param = "h.0.ln_2.weight"},
    %h_0_ln_2_bias: tensor<128xf32> {tfc.param = "h.0.ln_2.bias"},
    %h_0_mlp_c_fc_weight: tensor<512x128xf32> {tfc.param = "h.0.mlp.c_fc.weight"},
    %h_0_mlp_c_fc_bias: tensor<512xf32> {tfc.param = "h.0.mlp.c_fc.bias"},
    %h_0_mlp_c_proj_weight: tensor<128x512xf32> {tfc.param = "h.0.mlp.c_proj.weight"},
    %h_0_mlp_c_proj_bias: tensor<128xf32> {tfc.param = "h.0.mlp.c_proj.bias"},
    %h_1_ln_1_weight: tensor<128xf32> {tfc.param = "h.1.ln_1.weight"},
    %h_1_ln_1_bias: tensor<128xf32> {tfc.param = "h.1.ln_1.bias"},
    %h_1_attn_c_attn_weight: tensor<384x128xf32> {tfc.param = "h.1.attn.c_attn.weight"},
    %h_1_attn_c_attn_bias: tensor<384xf32> {tfc.param = "h.1.attn.c_attn.bias"},
    %h_1_attn_c_proj_weight: tensor<128x128xf32> {tfc.param = "h.1.attn.c_proj.weight"},
    %h_1_attn_c_proj_bias: tensor<128xf32> {tfc.param = "h.1.attn.c_proj.bias"},
    %h_1_ln_2_weight: tensor<128xf32> {tfc.param = "h.1.ln_2.weight"},
    %h_1_ln_2_bias: tensor<128xf32> {tfc.param = "h.1.ln_2.bias"},
    %h_1_mlp_c_fc_weight: tensor<512x128xf32> {tfc.param = "h.1.mlp.c_fc.weight"},
    %h_1_mlp_c_fc_bias: tensor<512xf32> {tfc.param = "h.1.mlp.c_fc.bias"},
    %h_1_mlp_c_proj_weight: tensor<128x512xf32> {tfc.param = "h.1.mlp.c_proj.weight"},
    %h_1_mlp_c_proj_bias: tensor<128xf32> {tfc.param = "h.1.mlp.c_proj.bias"},
    %ln_f_weight: tensor<128xf32> {tfc.param = "ln_f.weight"},
    %ln_f_bias: tensor<128xf32> {tfc.param = "ln_f.bias"},
    %tokens: tensor<16x64xi64> {tfc.input = "tokens"},
    %targets: tensor<16x64xi64> {tfc.input = "targets"}) -> tensor<f32> {
  // Token + position embeddings.
  %pos = tfc.iota dim 0 : tensor<64xi64>
  %tok_emb = tfc.embedding %wte_weight, %tokens : tensor<256x128xf32>, tensor<16x64xi64> -> tensor<16x64x128xf32>
  %pos_emb = tfc.embedding %wpe_weight, %pos : tensor<64x128xf32>, tensor<64xi64> -> tensor<64x128xf32>
  %x0 = tfc.add %tok_emb, %pos_emb : tensor<16x64x128xf32>, tensor<64x128xf32>

  // Block 0: x = x + attn(ln_1(x)); x = x + mlp(ln_2(x)).
  %h0_ln1, %h0_ln1_mean, %h0_ln1_rstd = tfc.layer_norm %x0 weight %h_0_ln_1_weight bias %h_0_ln_1_bias eps 1.000000e-05 : (tensor<16x64x128xf32>, tensor<128xf32>, tensor<128xf32>) -> (tensor<16x64x128xf32>, tensor<16x64x1xf32>, tensor<16x64x1xf32>)
  %h0_qkv_mm = tfc.matmul %h0_ln1, %h_0_attn_c_attn_weight transpose_b : tensor<16x64x128xf32>, tensor<384x128xf32> -> tensor<16x64x384xf32>
  %h0_qkv = tfc.add %h0_qkv_mm, %h_0_attn_c_attn_bias : tensor<16x64x384xf32>, tensor<384xf32>
  %h0_q_flat = tfc.slice %h0_qkv [0, 0, 0] to [16, 64, 128] : tensor<16x64x384xf32> -> tensor<16x64x128xf32>
  %h0_q_split = tfc.reshape %h0_q_flat : tensor<16x64x128xf32> -> tensor<16x64x4x32xf32>
  %h0_q = tfc.transpose %h0_q_split, [0, 2, 1, 3] : tensor<16x64x4x32xf32> -> tensor<16x4x64x32xf32>
  %h0_k_flat = tfc.slice %h0_qkv [0, 0, 128] to [16, 64, 256] : tensor<16x64x384xf32> -> tensor<16x64x128xf32>
  %h0_k_split = tfc.reshape %h0_k_flat : tensor<16x64x128xf32> -> tensor<16x64x4x32xf32>
  %h0_k = tfc.transpose %h0_k_split, [0, 2, 1, 3] : tensor<16x64x4x32xf32> -> tensor<16x4x64x32xf32>
  %h0_v_flat = tfc.slice %h0_qkv [0, 0, 256] to [16, 64, 384] : tensor<16x64x384xf32> -> tensor<16x64x128xf32>
  %h0_v_split = tfc.reshape %h0_v_flat : tensor<16x64x128xf32> -> tensor<16x64x4x32xf32>
  %h0_v = tfc.transpose %h0_v_split, [0, 2, 1, 3] : tensor<16x64x4x32xf32> -> tensor<16x4x64x32xf32>
  %h0_att = tfc.attention %h0_q, %h0_k, %h0_v causal : tensor<16x4x64x32xf32>, tensor<16x4x64x32xf32>, tensor<16x4x64x32xf32> -> tensor<16x4x64x32xf32>
  %h0_att_t = tfc.transpose %h0_att, [0, 2, 1, 3] : tensor<16x4x64x32xf32> -> tensor<16x64x4x32xf32>
  %h0_att_merged = tfc.reshape %h0_att_t : tensor<16x64x4x32xf32> -> tensor<16x64x128xf32>
  %h0_attn_out_mm = tfc.matmul %h0_att_merged, %h_0_attn_c_proj_weight transpose_b : tensor<16x64x128xf32>, tensor<128x128xf32> -> tensor<16x64x128xf32>
  %h0_attn_out = tfc.add %h0_attn_out_mm, %h_0_attn_c_proj_bias : tensor<16x64x128xf32>, tensor<128xf32>
  %h0_x1 = tfc.add %x0, %h0_attn_out : tensor<16x64x128xf32>, tensor<16x64x128xf32>
  %h0_ln2, %h0_ln2_mean, %h0_ln2_rstd = tfc.layer_norm %h0_x1 weight %h_0_ln_2_weight bias %h_0_ln_2_bias eps 1.000000e-05 : (tensor<16x64x128xf32>, tensor<128xf32>, tensor<128xf32>) -> (tensor<16x64x128xf32>, tensor<16x64x1xf32>, tensor<16x64x1xf32>)
  %h0_fc_mm = tfc.matmul %h0_ln2, %h_0_mlp_c_fc_weight transpose_b : tensor<16x64x128xf32>, tensor<512x128xf32> -> tensor<16x64x512xf32>
  %h0_fc = tfc.add %h0_fc_mm, %h_0_mlp_c_fc_bias : tensor<16x64x512xf32>, tensor<512xf32>
  %h0_gelu = tfc.gelu %h0_fc approximate tanh : tensor<16x64x512xf32>
  %h0_mlp_out_mm = tfc.matmul %h0_gelu, %h_0_mlp_c_proj_weight transpose_b : tensor<16x64x512xf32>, tensor<128x512xf32> -> tensor<16x64x128xf32>
  %h0_mlp_out = tfc.add %h0_mlp_out_mm, %h_0_mlp_c_proj_bias : tensor<16x64x128xf32>, tensor<128xf32>
  %h0_x2 = tfc.add %h0_x1, %h0_mlp_out : tensor<16x64x128xf32>, tensor<16x64x128xf32>

  // Block 1: x = x + attn(ln_1(x)); x = x + mlp(ln_2(x)).
  %h1_ln1, %h1_ln1_mean, %h1_ln1_rstd = tfc.layer_norm %h0_x2 weight %h_1_ln_1_weight bias %h_1_ln_1_bias eps 1.000000e-05 : (tensor<16x64x128xf32>, tensor<128xf32>, tensor<128xf32>) -> (tensor<16x64x128xf32>, tensor<16x64x1xf32>, tensor<16x64x1xf32>)
  %h1_qkv_mm = tfc.matmul %h1_ln1, %h_1_attn_c_attn_weight transpose_b : tensor<16x64x128xf32>, tensor<384x128xf32> -> tensor<16x64x384xf32>
  %h1_qkv = tfc.add %h1_qkv_mm, %h_1_attn_c_attn_bias : tensor<16x64x384xf32>, tensor<384xf32>
  %h1_q_flat = tfc.slice %h1_qkv [0, 0, 0] to [16, 64, 128] : tensor<16x64x384xf32> -> tensor<16x64x128xf32>
  %h1_q_split = tfc.reshape %h1_q_flat : tensor<16x64x128xf32> -> tensor<16x64x4x32xf32>
  %h1_q = tfc.transpose %h1_q_split, [0, 2, 1, 3] : tensor<16x64x4x32xf32> -> tensor<16x4x64x32xf32>
  %h1_k_flat = tfc.slice %h1_qkv [0, 0, 128] to [16, 64, 256] : tensor<16x64x384xf32> -> tensor<16x64x128xf32>
  %h1_k_split = tfc.reshape %h1_k_flat : tensor<16x64x128xf32> -> tensor<16x64x4x32xf32>
  %h1_k = tfc.transpose %h1_k_split, [0, 2, 1, 3] : tensor<16x64x4x32xf32> -> tensor<16x4x64x32xf32>
  %h1_v_flat = tfc.slice %h1_qkv [0, 0, 256] to [16, 64, 384] : tensor<16x64x384xf32> -> tensor<16x64x128xf32>
  %h1_v_split = tfc.reshape %h1_v_flat : tensor<16x64x128xf32> -> tensor<16x64x4x32xf32>
  %h1_v = tfc.transpose %h1_v_split, [0, 2, 1, 3] : tensor<16x64x4x32xf32> -> tensor<16x4x64x32xf32>
  %h1_att = tfc.attention %h1_q, %h1_k, %h1_v causal : tensor<16x4x64x32xf32>, tensor<16x4x64x32xf32>, tensor<16x4x64x32xf32> -> tensor<16x4x64x32xf32>
  %h1_att_t = tfc.transpose %h1_att, [0, 2, 1, 3] : tensor<16x4x64x32xf32> -> tensor<16x64x4x32xf32>
  %h1_att_merged = tfc.reshape %h1_att_t : tensor<16x64x4x32xf32> -> tensor<16x64x128xf32>
  %h1_attn_out_mm = tfc.matmul %h1_att_merged, %h_1_attn_c_proj_weight transpose_b : tensor<16x64x128xf32>, tensor<128x128xf32> -> tensor<16x64x128xf32>
  %h1_attn_out = tfc.add %h1_attn_out_mm, %h_1_attn_c_proj_bias : tensor<16x64x128xf32>, tensor<128xf32>
  %h1_x1 = tfc.add %h0_x2, %h1_attn_out : tensor<16x64x128xf32>, tensor<16x64x128xf32>
  %h1_ln2, %h1_ln2_mean, %h1_ln2_rstd = tfc.layer_norm %h1_x1 weight %h_1_ln_2_weight bias %h_1_ln_2_bias eps 1.000000e-05 : (tensor<16x64x128xf32>, tensor<128xf32>, tensor<128xf32>) -> (tensor<16x64x128xf32>, tensor<16x64x1xf32>, tensor<16x64x1xf32>)
  %h1_fc_mm = tfc.matmul %h1_ln2, %h_1_mlp_c_fc_weight transpose_b : tensor<16x64x128xf32>, tensor<512x128xf32> -> tensor<16x64x512xf32>
  %h1_fc = tfc.add %h1_fc_mm, %h_1_mlp_c_fc_bias : tensor<16x64x512xf32>, tensor<512xf32>
  %h1_gelu = tfc.gelu %h1_fc approximate tanh : tensor<16x64x512xf32>
  %h1_mlp_out_mm = tfc.matmul %h1_gelu, %h_1_mlp_c_proj_weight transpose_b : tensor<16x64x512xf32>, tensor<128x512xf32> -> tensor<16x64x128xf32>
  %h1_mlp_out = tfc.add %h1_mlp_out_mm, %h_1_mlp_c_proj_bias : tensor<16x64x128xf32>, tensor<128xf32>
  %h1_x2 = tfc.add %h1_x1, %h1_mlp_out : tensor<16x64x128xf32>, tensor<16x64x128xf32>

  // Final LayerNorm, LM head tied to the token embedding, mean cross-entropy.
  %lnf, %lnf_mean, %lnf_rstd = tfc.layer_norm %h1_x2 weight %ln_f_weight bias %ln_f_bias eps 1.000000e-05 : (tensor<16x64x128xf32>, tensor<128xf32>, tensor<128xf32>) -> (tensor<16x64x128xf32>, tensor<16x64x1xf32>, tensor<16x64x1xf32>)
  %logits = tfc.matmul %lnf, %wte_weight transpose_b : tensor<16x64x128xf32>, tensor<256x128xf32> -> tensor<16x64x256xf32>
  %logits_flat = tfc.reshape %logits : tensor<16x64x256xf32> -> tensor<1024x256xf32>
  %targets_flat = tfc.reshape %targets : tensor<16x64xi64> -> tensor<1024xi64>
  %loss = tfc.cross_entropy %logits_flat, %targets_flat : tensor<1024x256xf32>, tensor<1024xi64> -> tensor<f32>
  return %loss : tensor<f32>
}
