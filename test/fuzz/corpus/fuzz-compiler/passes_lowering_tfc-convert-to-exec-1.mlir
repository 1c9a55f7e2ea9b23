func.func @loss(%x: tensor<16xf32> {tfc.input = "x"}) -> tensor<16xf32> {
  %0 = tfc.fusion pointwise (%in = %x : tensor<16xf32>) -> tensor<16xf32> {
    %r = tfc.neg %in : tensor<16xf32>
    tfc.yield %r : tensor<16xf32>
  }
  %1 = tfc.fusion pointwise (%in = %0 : tensor<16xf32>) -> tensor<16xf32> {
    %r = tfc.exp %in : tensor<16xf32>
    tfc.yield %r : tensor<16xf32>
  }
  %2 = tfc.fusion pointwise (%in = %1 : tensor<16xf32>) -> tensor<16xf32> {
    %r = tfc.tanh %in : tensor<16xf32>
    tfc.yield %r : tensor<16xf32>
  }
  %3 = tfc.fusion pointwise (%in = %0 : tensor<16xf32>, %in_0 = %2 : tensor<16xf32>) -> tensor<16xf32> {
    %r = tfc.add %in, %in_0 : tensor<16xf32>, tensor<16xf32>
    tfc.yield %r : tensor<16xf32>
  }
  return %3 : tensor<16xf32>
}
