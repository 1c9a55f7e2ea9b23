func.func @yield_count(%x: tensor<4xf32>) -> tensor<4xf32> {
  %r = tfc.fusion pointwise (%a = %x : tensor<4xf32>) -> tensor<4xf32> {
    %0 = tfc.exp %a : tensor<4xf32>
    tfc.yield %0, %a : tensor<4xf32>, tensor<4xf32>
  }
  return %r : tensor<4xf32>
}
