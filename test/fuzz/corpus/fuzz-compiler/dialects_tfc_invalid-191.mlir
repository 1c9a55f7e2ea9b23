func.func @loss_per_element(%logits: tensor<8x10xf32>, %labels: tensor<8xi64>) -> tensor<8x10xf32> {
  %r = tfc.fusion row_reduction (%a = %logits : tensor<8x10xf32>, %b = %labels : tensor<8xi64>) -> tensor<8x10xf32> {
    %l = tfc.cross_entropy %a, %b : tensor<8x10xf32>, tensor<8xi64> -> tensor<f32>
    %s = tfc.softmax %a dim -1 : tensor<8x10xf32>
    %0 = tfc.mul %s, %l : tensor<8x10xf32>, tensor<f32>
    tfc.yield %0 : tensor<8x10xf32>
  }
  return %r : tensor<8x10xf32>
}
