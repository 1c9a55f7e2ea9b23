func.func @loss(%x: tensor<4xf32> {tfc.param = "x"}) -> tensor<f32> {
  %r = tfc.relu %x : tensor<4xf32>
  %i = tfc.iota dim 0 : tensor<4xi32>
  %two = tfc.constant dense<2> : tensor<i32>
  %m = tfc.compare lt, %i, %two : tensor<4xi32>, tensor<i32>
  %zero = tfc.constant dense<0.0> : tensor<f32>
  %sel = tfc.select %m, %r, %zero : tensor<4xi1>, tensor<4xf32>, tensor<f32>
  %s = tfc.reduce_sum %sel dims [0] : tensor<4xf32> -> tensor<f32>
  return %s : tensor<f32>
}
