func.func @layer_norm_int(%x: tensor<4x8xi32>) {
  %y:3 = "tfc.layer_norm"(%x) <{eps = 1.0e-05 : f64, normalized_rank = 1 : i64, operandSegmentSizes = array<i32: 1, 0, 0>}> : (tensor<4x8xi32>) -> (tensor<4x8xi32>, tensor<4x1xf32>, tensor<4x1xf32>)
  return
}
