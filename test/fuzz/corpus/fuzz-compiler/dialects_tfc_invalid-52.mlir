func.func @pad_negative(%x: tensor<4x5xf32>) -> tensor<4x4xf32> {
  %0 = tfc.pad %x low [0, -1] high [0, 0] value 0.0 : tensor<4x5xf32> -> tensor<4x4xf32>
  return %0 : tensor<4x4xf32>
}
