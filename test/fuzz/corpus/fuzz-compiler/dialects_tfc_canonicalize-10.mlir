func.func @no_fold_div_by_zero() -> tensor<2xi32> {
  %a = tfc.constant dense<[4, 6]> : tensor<2xi32>
  %b = tfc.constant dense<[2, 0]> : tensor<2xi32>
  %0 = tfc.div %a, %b : tensor<2xi32>, tensor<2xi32>
  return %0 : tensor<2xi32>
}
