func.func @adam(%p: tensor<16xf64>, %g: tensor<16xf64>, %m: tensor<16xf64>, %v: tensor<16xf64>, %lr: tensor<f64>, %step: tensor<i64>) -> tensor<16xf64> {
  %p1, %m1, %v1 = tfc.adam %p, %g, %m, %v, %lr, %step weight_decay 1.000000e-02 : tensor<16xf64>, tensor<16xf64>, tensor<f64>
  return %p1 : tensor<16xf64>
}
