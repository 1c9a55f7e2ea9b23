func.func @pow(%x: tensor<8xf64>) -> tensor<8xf64> {
  %0 = tfc.pow %x, 3.0 : tensor<8xf64>
  return %0 : tensor<8xf64>
}
