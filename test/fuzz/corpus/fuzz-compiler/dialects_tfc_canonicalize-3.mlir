func.func @convert_int_chain(%x: tensor<4xi32>) -> tensor<4xf32> {
  %0 = tfc.convert %x : tensor<4xi32> -> tensor<4xi64>
  %1 = tfc.convert %0 : tensor<4xi64> -> tensor<4xf32>
  return %1 : tensor<4xf32>
}
