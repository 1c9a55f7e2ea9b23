func.func @dynamic_input(%x: tensor<?xf32>) -> tensor<4xf32> {
  %r = tfc.fusion pointwise (%a = %x : tensor<?xf32>) -> tensor<4xf32> {
    %0 = tfc.constant dense<1.0> : tensor<4xf32>
    tfc.yield %0 : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}
