func.func @fold_arith() -> tensor<2x2xf32> {
  %a = tfc.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
  %b = tfc.constant dense<[10.0, 20.0]> : tensor<2xf32>
  %0 = tfc.add %a, %b : tensor<2x2xf32>, tensor<2xf32>
  return %0 : tensor<2x2xf32>
}
