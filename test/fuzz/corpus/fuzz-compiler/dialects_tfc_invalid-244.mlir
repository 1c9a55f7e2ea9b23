func.func @double_update(%w: tensor<4xf32> {tfc.param = "w"}) -> (tensor<4xf32> {tfc.update = "w"}, tensor<4xf32> {tfc.update = "w"}) {
  return %w, %w : tensor<4xf32>, tensor<4xf32>
}
