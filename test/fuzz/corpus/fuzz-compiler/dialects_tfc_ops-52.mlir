func.func @cross_entropy(%logits: tensor<1024x256xf32>, %labels: tensor<1024xi64>) -> tensor<f32> {
  %loss = tfc.cross_entropy %logits, %labels : tensor<1024x256xf32>, tensor<1024xi64> -> tensor<f32>
  return %loss : tensor<f32>
}
