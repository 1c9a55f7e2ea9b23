tfcrt.kernel @k0 row_reduction (tensor<4096x64xf32>, tensor<4096xi64>) -> tensor<f32> {
^bb0(%logits: tensor<4096x64xf32>, %labels: tensor<4096xi64>):
  %0 = tfc.cross_entropy %logits, %labels : tensor<4096x64xf32>, tensor<4096xi64> -> tensor<f32>
  tfcrt.yield %0 : tensor<f32>
}
