func.func @dropout_p_negative(%x: tensor<8xf32>, %s: tensor<i64>, %o: tensor<i64>) {
  %0 = tfc.dropout %x, %s, %o p -0.5 : tensor<8xf32>
  return
}
