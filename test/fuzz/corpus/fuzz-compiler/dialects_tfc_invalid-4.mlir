func.func @newline_name(%w: tensor<4xf32> {tfc.param = "fc\nweight"}) {
  return
}
