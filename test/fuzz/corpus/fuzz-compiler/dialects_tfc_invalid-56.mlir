func.func @iota_dim() -> tensor<4x8xi64> {
  %0 = tfc.iota dim 2 : tensor<4x8xi64>
  return %0 : tensor<4x8xi64>
}
