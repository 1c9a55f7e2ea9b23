func.func @cross_entropy_logits_rank(%l: tensor<2x8x10xf32>, %y: tensor<8xi64>) {
  %0 = tfc.cross_entropy %l, %y : tensor<2x8x10xf32>, tensor<8xi64> -> tensor<f32>
  return
}
