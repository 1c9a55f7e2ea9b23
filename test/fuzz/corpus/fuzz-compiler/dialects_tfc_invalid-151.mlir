func.func @unbound_argument(%x: tensor<4xf32>) -> tensor<4xf32> {
  %r = tfc.fusion pointwise (%a : tensor<4xf32>) -> tensor<4xf32> {
    %0 = tfc.exp %a : tensor<4xf32>
    tfc.yield %0 : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}
