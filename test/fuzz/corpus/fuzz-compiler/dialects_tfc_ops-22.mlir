func.func @reduce_all(%x: tensor<16x64xf32>) -> tensor<f32> {
  %0 = tfc.reduce_mean %x dims [0, 1] : tensor<16x64xf32> -> tensor<f32>
  return %0 : tensor<f32>
}
