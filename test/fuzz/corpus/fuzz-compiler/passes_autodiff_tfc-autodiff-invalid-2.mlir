func.func @loss(%x: tensor<f32> {tfc.param = "x"}) -> (tensor<f32>, tensor<f32>) {
  return %x, %x : tensor<f32>, tensor<f32>
}
