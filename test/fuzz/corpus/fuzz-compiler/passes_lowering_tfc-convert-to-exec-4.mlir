func.func @loss(%x: tensor<4x16x32xf32> {tfc.input = "x"}, %w: tensor<64x32xf32> {tfc.param = "w"}, %b: tensor<64xf32> {tfc.param = "b"}) -> (tensor<4x16x64xf32>, tensor<4x16x64xf32>) {
  %r:2 = tfc.fusion gemm (%in = %x : tensor<4x16x32xf32>, %in_0 = %w : tensor<64x32xf32>, %in_1 = %b : tensor<64xf32>) -> (tensor<4x16x64xf32>, tensor<4x16x64xf32>) {
    %y = tfc.matmul %in, %in_0 transpose_b : tensor<4x16x32xf32>, tensor<64x32xf32> -> tensor<4x16x64xf32>
    %s = tfc.add %y, %in_1 : tensor<4x16x64xf32>, tensor<64xf32>
    %g = tfc.gelu %s approximate tanh : tensor<4x16x64xf32>
    tfc.yield %s, %g : tensor<4x16x64xf32>, tensor<4x16x64xf32>
  }
  return %r#0, %r#1 : tensor<4x16x64xf32>, tensor<4x16x64xf32>
}
