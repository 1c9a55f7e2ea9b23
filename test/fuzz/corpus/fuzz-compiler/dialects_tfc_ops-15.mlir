func.func @concat_single(%a: tensor<4xi64>) -> tensor<4xi64> {
  %0 = tfc.concat %a dim 0 : tensor<4xi64> -> tensor<4xi64>
  return %0 : tensor<4xi64>
}
