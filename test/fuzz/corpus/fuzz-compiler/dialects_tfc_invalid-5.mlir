func.func @int_param(%s: tensor<i64> {tfc.param = "step"}) {
  return
}
