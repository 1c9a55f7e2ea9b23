func.func @loss(%ids: tensor<8xi64> {tfc.input = "ids"},
                %emb: tensor<10x16xf32> {tfc.param = "embed"},
                %w0: tensor<16x16xf32> {tfc.param = "a.weight"},
                %w1: tensor<16x16xf32> {tfc.param = "b.weight"}) -> tensor<f32> {
  %e = tfc.embedding %emb, %ids : tensor<10x16xf32>, tensor<8xi64> -> tensor<8x16xf32>
  %h0 = tfc.checkpoint (%x = %e : tensor<8x16xf32>, %w = %w0 : tensor<16x16xf32>) -> tensor<8x16xf32> {
    %m = tfc.matmul %x, %w transpose_b : tensor<8x16xf32>, tensor<16x16xf32> -> tensor<8x16xf32>
    %g = tfc.gelu %m approximate tanh : tensor<8x16xf32>
    tfc.yield %g : tensor<8x16xf32>
  }
  %h1 = tfc.checkpoint (%x = %h0 : tensor<8x16xf32>, %w = %w1 : tensor<16x16xf32>) -> tensor<8x16xf32> {
    %m = tfc.matmul %x, %w transpose_b : tensor<8x16xf32>, tensor<16x16xf32> -> tensor<8x16xf32>
    tfc.yield %m : tensor<8x16xf32>
  }
  %s = tfc.reduce_sum %h1 dims [0, 1] : tensor<8x16xf32> -> tensor<f32>
  return %s : tensor<f32>
}
