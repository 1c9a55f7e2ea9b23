func.func @binary(%x: tensor<16x64x128xf32>, %b: tensor<128xf32>, %c: tensor<16x1x1xf32>, %s: tensor<f32>) -> tensor<16x64x128xf32> {
  %0 = tfc.add %x, %b : tensor<16x64x128xf32>, tensor<128xf32>
  %1 = tfc.sub %0, %c : tensor<16x64x128xf32>, tensor<16x1x1xf32>
  %2 = tfc.mul %1, %s : tensor<16x64x128xf32>, tensor<f32>
  %3 = tfc.div %2, %b : tensor<16x64x128xf32>, tensor<128xf32>
  %4 = tfc.maximum %3, %s : tensor<16x64x128xf32>, tensor<f32>
  %5 = tfc.minimum %4, %c : tensor<16x64x128xf32>, tensor<16x1x1xf32>
  return %5 : tensor<16x64x128xf32>
}
