func.func @convert_lossy_chain(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = tfc.convert %x : tensor<4xf32> -> tensor<4xf16>
  %1 = tfc.convert %0 : tensor<4xf16> -> tensor<4xf32>
  return %1 : tensor<4xf32>
}
