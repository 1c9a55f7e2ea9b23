func.func @fold_compare_convert() -> (tensor<3xi1>, tensor<3xi32>) {
  %a = tfc.constant dense<[1.5, -2.5, 3.0]> : tensor<3xf32>
  %b = tfc.constant dense<[2.0, -3.0, 3.0]> : tensor<3xf32>
  %0 = tfc.compare lt, %a, %b : tensor<3xf32>, tensor<3xf32>
  %1 = tfc.convert %a : tensor<3xf32> -> tensor<3xi32>
  return %0, %1 : tensor<3xi1>, tensor<3xi32>
}
