func.func @pad_range(%x: tensor<4xi1>) -> tensor<5xi1> {
  %0 = tfc.pad %x low [1] high [0] value 2.0 : tensor<4xi1> -> tensor<5xi1>
  return %0 : tensor<5xi1>
}
