func.func @reshape_constant() -> tensor<2x2xi32> {
  %c = tfc.constant dense<[1, 2, 3, 4]> : tensor<4xi32>
  %0 = tfc.reshape %c : tensor<4xi32> -> tensor<2x2xi32>
  return %0 : tensor<2x2xi32>
}
