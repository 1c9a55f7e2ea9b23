func.func @nul_name(%x: tensor<4xf32> {tfc.input = "tok\00ens"}) {
  return
}
