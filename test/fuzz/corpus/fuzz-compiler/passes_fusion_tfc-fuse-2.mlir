func.func @bias_residual_layer_norm(%mm: tensor<8x16xf32>, %b: tensor<16xf32>, %res: tensor<8x16xf32>, %w: tensor<16xf32>) -> (tensor<8x16xf32>, tensor<8x8xf32>) {
  %0 = tfc.add %mm, %b : tensor<8x16xf32>, tensor<16xf32>
  %x = tfc.add %res, %0 : tensor<8x16xf32>, tensor<8x16xf32>
  %y, %m, %r = tfc.layer_norm %x weight %w : (tensor<8x16xf32>, tensor<16xf32>) -> (tensor<8x16xf32>, tensor<8x1xf32>, tensor<8x1xf32>)
  %1 = tfc.matmul %x, %res transpose_b : tensor<8x16xf32>, tensor<8x16xf32> -> tensor<8x8xf32>
  return %y, %1 : tensor<8x16xf32>, tensor<8x8xf32>
}

func.func @scale_mask_softmax(%s: tensor<2x8x8xf32>) -> tensor<2x8x8xbf16> {
  %c = tfc.constant dense<0.5> : tensor<f32>
  %0 = tfc.mul %s, %c : tensor<2x8x8xf32>, tensor<f32>
  %i = tfc.iota dim 0 : tensor<8x8xi32>
  %j = tfc.iota dim 1 : tensor<8x8xi32>
  %m = tfc.compare le, %j, %i : tensor<8x8xi32>, tensor<8x8xi32>
  %ninf = tfc.constant dense<0xFF800000> : tensor<f32>
  %1 = tfc.select %m, %0, %ninf : tensor<8x8xi1>, tensor<2x8x8xf32>, tensor<f32>
  %2 = tfc.softmax %1 dim -1 : tensor<2x8x8xf32>
  %3 = tfc.convert %2 : tensor<2x8x8xf32> -> tensor<2x8x8xbf16>
  return %3 : tensor<2x8x8xbf16>
}
