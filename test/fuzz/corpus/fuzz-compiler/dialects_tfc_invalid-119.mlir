func.func @dropout_seed_type(%x: tensor<8xf32>, %s: tensor<1xi64>, %o: tensor<i64>) {
  %0 = "tfc.dropout"(%x, %s, %o) <{p = 1.0e-01 : f64}> : (tensor<8xf32>, tensor<1xi64>, tensor<i64>) -> tensor<8xf32>
  return
}
