func.func @unknown(%w: tensor<4xf32> {tfc.weight = "w"}) {
  return
}
