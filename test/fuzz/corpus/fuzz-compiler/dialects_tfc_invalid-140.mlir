func.func @cross_entropy_batch(%l: tensor<8x10xf32>, %y: tensor<4xi64>) {
  %0 = tfc.cross_entropy %l, %y : tensor<8x10xf32>, tensor<4xi64> -> tensor<f32>
  return
}
