func.func @keeps_in_place_updates(%g: tensor<4x8xf32>, %acc: tensor<8xf32> {tfc.state = "acc"}, %p: tensor<8xf32> {tfc.param = "p"}, %step: tensor<i64> {tfc.state = "step"}) -> (tensor<8xf32> {tfc.update = "acc"}, tensor<i64> {tfc.update = "step"}, tensor<8xf32> {tfc.update = "p"}) {
  %s = tfc.reduce_sum %g dims [0] : tensor<4x8xf32> -> tensor<8xf32>
  %a = tfc.add %acc, %s : tensor<8xf32>, tensor<8xf32>
  %f = tfc.convert %step : tensor<i64> -> tensor<f32>
  %q = tfc.mul %p, %f : tensor<8xf32>, tensor<f32>
  %one = tfc.constant dense<1> : tensor<i64>
  %next = tfc.add %step, %one : tensor<i64>, tensor<i64>
  return %a, %next, %q : tensor<8xf32>, tensor<i64>, tensor<8xf32>
}
