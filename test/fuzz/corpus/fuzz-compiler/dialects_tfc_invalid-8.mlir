func.func @neg_bool(%x: tensor<4xi1>) {
  %0 = tfc.neg %x : tensor<4xi1>
  return
}
