func.func @pointwise_chain(%x: tensor<4x8xbf16>, %b: tensor<8xf32>) -> tensor<4x8xf32> {
  %0 = tfc.convert %x : tensor<4x8xbf16> -> tensor<4x8xf32>
  %1 = tfc.add %0, %b : tensor<4x8xf32>, tensor<8xf32>
  %i = tfc.iota dim 1 : tensor<4x8xi32>
  %four = tfc.constant dense<4> : tensor<i32>
  %keep = tfc.compare lt, %i, %four : tensor<4x8xi32>, tensor<i32>
  %zero = tfc.constant dense<0.0> : tensor<f32>
  %2 = tfc.select %keep, %1, %zero : tensor<4x8xi1>, tensor<4x8xf32>, tensor<f32>
  return %2 : tensor<4x8xf32>
}
