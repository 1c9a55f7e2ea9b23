func.func @pow_int(%x: tensor<4xi64>) {
  %0 = tfc.pow %x, 2.0 : tensor<4xi64>
  return
}
