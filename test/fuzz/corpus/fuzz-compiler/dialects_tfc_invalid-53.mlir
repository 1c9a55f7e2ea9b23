func.func @pad_fraction(%x: tensor<4xi32>) -> tensor<5xi32> {
  %0 = tfc.pad %x low [1] high [0] value 0.5 : tensor<4xi32> -> tensor<5xi32>
  return %0 : tensor<5xi32>
}
