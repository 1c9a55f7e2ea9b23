func.func @layer_norm_segments(%x: tensor<4x8xf32>, %w: tensor<8xf32>) {
  %y:3 = "tfc.layer_norm"(%x, %w) <{eps = 1.0e-05 : f64, normalized_rank = 1 : i64, operandSegmentSizes = array<i32: 1, 1, 1>}> : (tensor<4x8xf32>, tensor<8xf32>) -> (tensor<4x8xf32>, tensor<4x1xf32>, tensor<4x1xf32>)
  return
}
