func.func @iota_scalar() -> tensor<i64> {
  %0 = tfc.iota dim 0 : tensor<i64>
  return %0 : tensor<i64>
}
