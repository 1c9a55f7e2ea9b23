func.func @exp_int(%x: tensor<4xi32>) {
  %0 = tfc.exp %x : tensor<4xi32>
  return
}
