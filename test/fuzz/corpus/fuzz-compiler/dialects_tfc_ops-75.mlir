func.func @cross_entropy_grad(%dloss: tensor<f32>, %logits: tensor<1024x256xf32>, %labels: tensor<1024xi64>, %l16: tensor<8x10xbf16>, %lab16: tensor<8xi64>) -> (tensor<1024x256xf32>, tensor<8x10xbf16>) {
  %0 = tfc.cross_entropy_grad %dloss, %logits, %labels : tensor<f32>, tensor<1024x256xf32>, tensor<1024xi64> -> tensor<1024x256xf32>
  %1 = tfc.cross_entropy_grad %dloss, %l16, %lab16 ignore_index 0 label_smoothing 1.000000e-01 reduction sum : tensor<f32>, tensor<8x10xbf16>, tensor<8xi64> -> tensor<8x10xbf16>
  return %0, %1 : tensor<1024x256xf32>, tensor<8x10xbf16>
}
