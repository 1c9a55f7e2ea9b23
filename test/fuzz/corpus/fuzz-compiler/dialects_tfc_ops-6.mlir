func.func @convert(%x: tensor<16x128xf32>, %i: tensor<4xi32>) -> (tensor<16x128xbf16>, tensor<4xf16>, tensor<4xi1>) {
  %0 = tfc.convert %x : tensor<16x128xf32> -> tensor<16x128xbf16>
  %1 = tfc.convert %i : tensor<4xi32> -> tensor<4xf16>
  %2 = tfc.convert %i : tensor<4xi32> -> tensor<4xi1>
  return %0, %1, %2 : tensor<16x128xbf16>, tensor<4xf16>, tensor<4xi1>
}
