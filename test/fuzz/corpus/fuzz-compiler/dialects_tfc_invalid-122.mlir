func.func @dropout_result(%x: tensor<8xf32>, %s: tensor<i64>, %o: tensor<i64>) {
  %0 = "tfc.dropout"(%x, %s, %o) <{p = 1.0e-01 : f64}> : (tensor<8xf32>, tensor<i64>, tensor<i64>) -> tensor<8xf16>
  return
}
