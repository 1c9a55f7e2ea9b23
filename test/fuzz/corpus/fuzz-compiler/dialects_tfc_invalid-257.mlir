func.func @update_reads_tensor_sum(%p: tensor<64xf32>, %g: tensor<64xf32>, %lr: tensor<f32>, %step: tensor<i64>) -> tensor<64xf32> {
  %r = tfc.fusion multi_tensor (%a = %p : tensor<64xf32>, %b = %g : tensor<64xf32>, %c = %lr : tensor<f32>, %d = %step : tensor<i64>) -> tensor<64xf32> {
    %sq = tfc.mul %b, %b : tensor<64xf32>, tensor<64xf32>
    %n = tfc.reduce_sum %sq dims [0] : tensor<64xf32> -> tensor<f32>
    %scaled = tfc.mul %b, %n : tensor<64xf32>, tensor<f32>
    %p2 = tfc.sgd %a, %scaled, %c, %d : tensor<64xf32>, tensor<64xf32>, tensor<f32>
    tfc.yield %p2 : tensor<64xf32>
  }
  return %r : tensor<64xf32>
}
