func.func @iota_bool() -> tensor<4xi1> {
  %0 = tfc.iota dim 0 : tensor<4xi1>
  return %0 : tensor<4xi1>
}
