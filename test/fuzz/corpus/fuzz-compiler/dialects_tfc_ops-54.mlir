func.func @cross_entropy_f64(%logits: tensor<4x3xf64>, %labels: tensor<4xi64>) -> tensor<f64> {
  %loss = tfc.cross_entropy %logits, %labels ignore_index -100 label_smoothing 0.0 reduction mean : tensor<4x3xf64>, tensor<4xi64> -> tensor<f64>
  return %loss : tensor<f64>
}
