func.func @loss_and_grad(%logits: tensor<8x10xf32>, %labels: tensor<8xi64>) -> (tensor<f32>, tensor<8x10xf32>) {
  %l = tfc.cross_entropy %logits, %labels : tensor<8x10xf32>, tensor<8xi64> -> tensor<f32>
  %one = tfc.constant dense<1.0> : tensor<f32>
  %g = tfc.cross_entropy_grad %one, %logits, %labels : tensor<f32>, tensor<8x10xf32>, tensor<8xi64> -> tensor<8x10xf32>
  %two = tfc.constant dense<2.0> : tensor<f32>
  %0 = tfc.mul %g, %two : tensor<8x10xf32>, tensor<f32>
  return %l, %0 : tensor<f32>, tensor<8x10xf32>
}
