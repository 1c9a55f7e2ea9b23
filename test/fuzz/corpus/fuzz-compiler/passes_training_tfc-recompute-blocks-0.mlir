func.func @loss(%ids: tensor<8xi64> {tfc.input = "ids"},
                %emb: tensor<10x16xf32> {tfc.param = "embed.weight"},
                      %w0: tensor<16x16xf32> {tfc.param = "layers.0.weight"},
                      %w1: tensor<16x16xf32> {tfc.param = "layers.1.weight"},
                      %head: tensor<10x16xf32> {tfc.param = "head.weight"},
                      %y: tensor<8xi64> {tfc.input = "y"}) -> tensor<f32> {
  %e = tfc.embedding %emb, %ids : tensor<10x16xf32>, tensor<8xi64> -> tensor<8x16xf32>
  %h0 = tfc.matmul %e, %w0 transpose_b : tensor<8x16xf32>, tensor<16x16xf32> -> tensor<8x16xf32>
  %g0 = tfc.gelu %h0 approximate tanh : tensor<8x16xf32>
  %x1 = tfc.add %e, %g0 : tensor<8x16xf32>, tensor<8x16xf32>
  %h1 = tfc.matmul %x1, %w1 transpose_b : tensor<8x16xf32>, tensor<16x16xf32> -> tensor<8x16xf32>
  %g1 = tfc.gelu %h1 approximate tanh : tensor<8x16xf32>
  %x2 = tfc.add %x1, %g1 : tensor<8x16xf32>, tensor<8x16xf32>
  %logits = tfc.matmul %x2, %head transpose_b : tensor<8x16xf32>, tensor<10x16xf32> -> tensor<8x10xf32>
  %loss = tfc.cross_entropy %logits, %y : tensor<8x10xf32>, tensor<8xi64> -> tensor<f32>
  return %loss : tensor<f32>
}
