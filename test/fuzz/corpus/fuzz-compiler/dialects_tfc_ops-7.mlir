func.func @constants() -> (tensor<f32>, tensor<3xi64>, tensor<2x2xbf16>, tensor<2xi1>) {
  %0 = tfc.constant dense<0.0> : tensor<f32>
  %1 = tfc.constant dense<[1, 2, 3]> : tensor<3xi64>
  %2 = tfc.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xbf16>
  %3 = tfc.constant dense<[true, false]> : tensor<2xi1>
  return %0, %1, %2, %3 : tensor<f32>, tensor<3xi64>, tensor<2x2xbf16>, tensor<2xi1>
}
