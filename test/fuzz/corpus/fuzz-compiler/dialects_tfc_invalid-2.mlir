func.func @empty_name(%w: tensor<4xf32> {tfc.param = "w"}, %x: tensor<4xf32> {tfc.input = ""}) {
  return
}
