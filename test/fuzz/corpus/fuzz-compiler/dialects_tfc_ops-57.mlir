func.func @pointwise(%x: tensor<4x8xf32>, %b: tensor<8xf32>) -> tensor<4x8xf32> {
  %r = tfc.fusion pointwise (%a = %x : tensor<4x8xf32>, %c = %b : tensor<8xf32>) -> tensor<4x8xf32> {
    %0 = tfc.add %a, %c : tensor<4x8xf32>, tensor<8xf32>
    %1 = tfc.gelu %0 approximate tanh : tensor<4x8xf32>
    tfc.yield %1 : tensor<4x8xf32>
  }
  return %r : tensor<4x8xf32>
}
