func.func @mlp_and_vocabulary(%x: tensor<16x104xbf16> {tfc.input = "x"},
                              %w1: tensor<300x104xbf16> {tfc.param = "w1"},
                              %b1: tensor<300xbf16> {tfc.param = "b1"},
                              %w2: tensor<1007x300xbf16> {tfc.param = "w2"},
                              %y: tensor<16xi64> {tfc.input = "y"}) -> tensor<f32> {
  %h = tfc.matmul %x, %w1 transpose_b : tensor<16x104xbf16>, tensor<300x104xbf16> -> tensor<16x300xbf16>
  %hb = tfc.add %h, %b1 : tensor<16x300xbf16>, tensor<300xbf16>
  %g = tfc.gelu %hb approximate tanh : tensor<16x300xbf16>
  %logits = tfc.matmul %g, %w2 transpose_b : tensor<16x300xbf16>, tensor<1007x300xbf16> -> tensor<16x1007xbf16>
  %l32 = tfc.convert %logits : tensor<16x1007xbf16> -> tensor<16x1007xf32>
  %loss = tfc.cross_entropy %l32, %y : tensor<16x1007xf32>, tensor<16xi64> -> tensor<f32>
  return %loss : tensor<f32>
}
