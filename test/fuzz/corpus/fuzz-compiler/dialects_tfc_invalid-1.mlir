func.func @not_a_string(%w: tensor<4xf32> {tfc.param = 3 : i64}) {
  return
}
