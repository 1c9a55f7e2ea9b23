func.func @iota() -> (tensor<64xi64>, tensor<64x64xi32>, tensor<8x4xf32>) {
  %0 = tfc.iota dim 0 : tensor<64xi64>
  %1 = tfc.iota dim 1 : tensor<64x64xi32>
  %2 = tfc.iota dim -2 : tensor<8x4xf32>
  return %0, %1, %2 : tensor<64xi64>, tensor<64x64xi32>, tensor<8x4xf32>
}
