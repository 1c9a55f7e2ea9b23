func.func @cross_entropy_labels_rank(%l: tensor<8x10xf32>, %y: tensor<8x1xi64>) {
  %0 = tfc.cross_entropy %l, %y : tensor<8x10xf32>, tensor<8x1xi64> -> tensor<f32>
  return
}
