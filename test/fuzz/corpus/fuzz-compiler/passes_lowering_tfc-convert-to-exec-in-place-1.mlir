func.func @train_step(%p: tensor<8xf32> {tfc.param = "p"}, %m: tensor<8xf32> {tfc.state = "p.exp_avg"},
                      %v: tensor<8xf32> {tfc.state = "p.exp_avg_sq"}, %step: tensor<i64> {tfc.state = "step"},
                      %g: tensor<8xf32> {tfc.input = "g"}, %lr: tensor<f32> {tfc.input = "lr"})
    -> (tensor<8xf32> {tfc.update = "p"}, tensor<8xf32> {tfc.update = "p.exp_avg"},
        tensor<8xf32> {tfc.update = "p.exp_avg_sq"}, tensor<i64> {tfc.update = "step"}) {
  %t = tfc.fusion pointwise (%in = %step : tensor<i64>) -> tensor<i64> {
    %one = tfc.constant dense<1> : tensor<i64>
    %r = tfc.add %in, %one : tensor<i64>, tensor<i64>
    tfc.yield %r : tensor<i64>
  }
  %u:3 = tfc.fusion multi_tensor (%a = %p : tensor<8xf32>, %b = %g : tensor<8xf32>, %c = %m : tensor<8xf32>,
                                  %d = %v : tensor<8xf32>, %e = %lr : tensor<f32>, %f = %t : tensor<i64>)
      -> (tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) {
    %p2, %m2, %v2 = tfc.adamw %a, %b, %c, %d, %e, %f : tensor<8xf32>, tensor<8xf32>, tensor<f32>
    tfc.yield %p2, %m2, %v2 : tensor<8xf32>, tensor<8xf32>, tensor<8xf32>
  }
  return %u#0, %u#1, %u#2, %t : tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<i64>
}
