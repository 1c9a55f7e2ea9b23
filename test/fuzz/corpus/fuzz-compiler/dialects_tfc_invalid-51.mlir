func.func @pad_length(%x: tensor<4x5xf32>) -> tensor<4x8xf32> {
  %0 = tfc.pad %x low [0, 0] high [3] value 0.0 : tensor<4x5xf32> -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}
