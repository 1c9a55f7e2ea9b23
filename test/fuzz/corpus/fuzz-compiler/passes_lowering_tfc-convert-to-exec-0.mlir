func.func @loss(%b: tensor<8xf32> {tfc.param = "fc.bias"}, %x: tensor<4x8xf32> {tfc.input = "x"}, %y: tensor<4xi64>) -> tensor<f32> {
  %0 = tfc.fusion pointwise (%in = %x : tensor<4x8xf32>, %in_0 = %b : tensor<8xf32>) -> tensor<4x8xf32> {
    %r = tfc.add %in, %in_0 : tensor<4x8xf32>, tensor<8xf32>
    tfc.yield %r : tensor<4x8xf32>
  }
  %1 = tfc.fusion pointwise (%in = %0 : tensor<4x8xf32>) -> tensor<4x8xf32> {
    %r = tfc.relu %in : tensor<4x8xf32>
    tfc.yield %r : tensor<4x8xf32>
  }
  %2 = tfc.fusion row_reduction (%in = %1 : tensor<4x8xf32>, %in_0 = %y : tensor<4xi64>) -> tensor<f32> {
    %r = tfc.cross_entropy %in, %in_0 : tensor<4x8xf32>, tensor<4xi64> -> tensor<f32>
    tfc.yield %r : tensor<f32>
  }
  return %2 : tensor<f32>
}
