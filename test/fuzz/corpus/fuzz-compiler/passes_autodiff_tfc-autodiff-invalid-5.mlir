module {
  func.func @other(%x: tensor<f32> {tfc.param = "x"}) -> tensor<f32> {
    return %x : tensor<f32>
  }
}
