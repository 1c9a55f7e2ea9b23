func.func @cross_entropy_options(%logits: tensor<8x10xbf16>, %labels: tensor<8xi32>) -> tensor<f32> {
  %loss = tfc.cross_entropy %logits, %labels ignore_index 0 label_smoothing 1.000000e-01 reduction sum : tensor<8x10xbf16>, tensor<8xi32> -> tensor<f32>
  return %loss : tensor<f32>
}
