func.func @slice_splat() -> tensor<2xi64> {
  %c = tfc.constant dense<7> : tensor<8xi64>
  %0 = tfc.slice %c [1] to [5] step [2] : tensor<8xi64> -> tensor<2xi64>
  return %0 : tensor<2xi64>
}
