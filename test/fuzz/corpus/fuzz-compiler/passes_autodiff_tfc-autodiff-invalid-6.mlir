func.func @loss(%x: tensor<f32> {tfc.param = "x"}) -> tensor<f32> {
  return %x : tensor<f32>
}
func.func @loss_grad() {
  return
}
