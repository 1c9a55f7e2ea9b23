func.func @kinds(%table: tensor<32x16xf32>, %ids: tensor<8xi64>, %w: tensor<4x16xf32>) -> (tensor<8x16xf32>, tensor<8x1xf32>, tensor<16xf32>, tensor<8x4xf32>, tensor<8xi64>) {
  %e = tfc.embedding %table, %ids : tensor<32x16xf32>, tensor<8xi64> -> tensor<8x16xf32>
  %y, %mean, %rstd = tfc.layer_norm %e : (tensor<8x16xf32>) -> (tensor<8x16xf32>, tensor<8x1xf32>, tensor<8x1xf32>)
  %s = tfc.reduce_sum %y dims [0] : tensor<8x16xf32> -> tensor<16xf32>
  %m = tfc.matmul %y, %w transpose_b : tensor<8x16xf32>, tensor<4x16xf32> -> tensor<8x4xf32>
  %i = tfc.iota dim 0 : tensor<8xi64>
  return %y, %mean, %s, %m, %i : tensor<8x16xf32>, tensor<8x1xf32>, tensor<16xf32>, tensor<8x4xf32>, tensor<8xi64>
}
