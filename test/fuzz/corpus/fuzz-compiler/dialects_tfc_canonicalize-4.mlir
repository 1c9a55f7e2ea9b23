func.func @convert_identity(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = tfc.convert %x : tensor<4xf32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
