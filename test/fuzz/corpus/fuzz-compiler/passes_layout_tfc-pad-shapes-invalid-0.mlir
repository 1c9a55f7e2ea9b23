func.func @loss(%x: tensor<4x8xf32> {tfc.input = "x"}) -> tensor<f32> {
  %s = tfc.reduce_sum %x dims [0, 1] : tensor<4x8xf32> -> tensor<f32>
  return %s : tensor<f32>
}
