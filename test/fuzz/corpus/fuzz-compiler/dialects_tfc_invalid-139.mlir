func.func @cross_entropy_labels_float(%l: tensor<8x10xf32>, %y: tensor<8xf32>) {
  %0 = tfc.cross_entropy %l, %y : tensor<8x10xf32>, tensor<8xf32> -> tensor<f32>
  return
}
