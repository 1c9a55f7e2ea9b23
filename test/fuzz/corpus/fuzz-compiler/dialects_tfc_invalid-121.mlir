func.func @dropout_int(%x: tensor<8xi32>, %s: tensor<i64>, %o: tensor<i64>) {
  %0 = tfc.dropout %x, %s, %o p 0.5 : tensor<8xi32>
  return
}
