func.func @cross_entropy_ignore_index(%l: tensor<8x10xf32>, %y: tensor<8xi32>) {
  %0 = tfc.cross_entropy %l, %y ignore_index 4294967296 : tensor<8x10xf32>, tensor<8xi32> -> tensor<f32>
  return
}
