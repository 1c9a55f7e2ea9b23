func.func @plain(%x: tensor<4xf32> {tfc.param = "w"}) -> tensor<f32> {
  %s = tfc.reduce_sum %x dims [0] : tensor<4xf32> -> tensor<f32>
  return %s : tensor<f32>
}
