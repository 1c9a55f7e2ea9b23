func.func @dropout_offset_type(%x: tensor<8xf32>, %s: tensor<i64>, %o: tensor<i32>) {
  %0 = "tfc.dropout"(%x, %s, %o) <{p = 1.0e-01 : f64}> : (tensor<8xf32>, tensor<i64>, tensor<i32>) -> tensor<8xf32>
  return
}
