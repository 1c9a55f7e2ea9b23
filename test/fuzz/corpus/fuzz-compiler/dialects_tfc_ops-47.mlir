func.func @dropout(%x: tensor<16x64x128xf32>, %seed: tensor<i64>, %offset: tensor<i64>) -> tensor<16x64x128xf32> {
  %d = tfc.dropout %x, %seed, %offset p 1.000000e-01 : tensor<16x64x128xf32>
  %e = tfc.dropout %d, %seed, %offset p 0.0 : tensor<16x64x128xf32>
  return %e : tensor<16x64x128xf32>
}
