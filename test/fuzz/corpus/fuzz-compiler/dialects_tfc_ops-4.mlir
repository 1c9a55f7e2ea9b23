func.func @outer(%a: tensor<4x1xi64>, %b: tensor<3xi64>) -> tensor<4x3xi64> {
  %0 = tfc.mul %a, %b : tensor<4x1xi64>, tensor<3xi64>
  return %0 : tensor<4x3xi64>
}
