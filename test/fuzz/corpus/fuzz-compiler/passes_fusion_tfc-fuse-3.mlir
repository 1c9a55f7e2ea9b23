func.func @mask_duplicated(%a: tensor<4x8x8xf32>, %b: tensor<4x8x8xf32>) -> (tensor<4x8x8xf32>, tensor<4x8x8xf32>) {
  %i = tfc.iota dim 0 : tensor<8x8xi64>
  %j = tfc.iota dim 1 : tensor<8x8xi64>
  %m = tfc.compare le, %j, %i : tensor<8x8xi64>, tensor<8x8xi64>
  %ninf = tfc.constant dense<0xFF800000> : tensor<f32>
  %s1 = tfc.select %m, %a, %ninf : tensor<8x8xi1>, tensor<4x8x8xf32>, tensor<f32>
  %r1 = tfc.softmax %s1 dim -1 : tensor<4x8x8xf32>
  %s2 = tfc.select %m, %b, %ninf : tensor<8x8xi1>, tensor<4x8x8xf32>, tensor<f32>
  %r2 = tfc.softmax %s2 dim -1 : tensor<4x8x8xf32>
  return %r1, %r2 : tensor<4x8x8xf32>, tensor<4x8x8xf32>
}
