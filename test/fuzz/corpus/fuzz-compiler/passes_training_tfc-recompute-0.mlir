func.func @loss(%x: tensor<8x16xf32> {tfc.input = "x"},
                %g: tensor<16xf32> {tfc.param = "ln.weight"},
                %w1: tensor<32x16xf32> {tfc.param = "fc.weight"},
                %b1: tensor<32xf32> {tfc.param = "fc.bias"},
                %w2: tensor<4x32xf32> {tfc.param = "proj.weight"},
                %y: tensor<8xi64> {tfc.input = "y"}) -> tensor<f32> {
  %ln, %mean, %rstd = tfc.layer_norm %x weight %g : (tensor<8x16xf32>, tensor<16xf32>) -> (tensor<8x16xf32>, tensor<8x1xf32>, tensor<8x1xf32>)
  %h = tfc.matmul %ln, %w1 transpose_b : tensor<8x16xf32>, tensor<32x16xf32> -> tensor<8x32xf32>
  %hb = tfc.add %h, %b1 : tensor<8x32xf32>, tensor<32xf32>
  %a = tfc.gelu %hb approximate tanh : tensor<8x32xf32>
  %logits = tfc.matmul %a, %w2 transpose_b : tensor<8x32xf32>, tensor<4x32xf32> -> tensor<8x4xf32>
  %loss = tfc.cross_entropy %logits, %y : tensor<8x4xf32>, tensor<8xi64> -> tensor<f32>
  return %loss : tensor<f32>
}
