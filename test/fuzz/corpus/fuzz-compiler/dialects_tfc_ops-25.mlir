func.func @checkpoint(%x: tensor<8x16xf32>, %w: tensor<16x16xf32>) -> tensor<8x16xf32> {
  %y = tfc.checkpoint (%a = %x : tensor<8x16xf32>, %b = %w : tensor<16x16xf32>) -> tensor<8x16xf32> {
    %h = tfc.matmul %a, %b transpose_b : tensor<8x16xf32>, tensor<16x16xf32> -> tensor<8x16xf32>
    %g = tfc.gelu %h approximate tanh : tensor<8x16xf32>
    tfc.yield %g : tensor<8x16xf32>
  }
  return %y : tensor<8x16xf32>
}
