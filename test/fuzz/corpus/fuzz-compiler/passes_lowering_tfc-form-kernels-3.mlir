func.func @constant_returned() -> (tensor<4xi64>, tensor<2x2xi64>) {
  %c = tfc.constant dense<[1, 2, 3, 4]> : tensor<4xi64>
  %r = tfc.reshape %c : tensor<4xi64> -> tensor<2x2xi64>
  return %c, %r : tensor<4xi64>, tensor<2x2xi64>
}
