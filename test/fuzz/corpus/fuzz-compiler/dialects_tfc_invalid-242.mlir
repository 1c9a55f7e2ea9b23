func.func @unknown_result_attr(%w: tensor<4xf32> {tfc.param = "w"}) -> (tensor<4xf32> {tfc.param = "w"}) {
  return %w : tensor<4xf32>
}
