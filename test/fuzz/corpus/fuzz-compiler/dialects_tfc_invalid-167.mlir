func.func @nested_fusion(%x: tensor<4xf32>) -> tensor<4xf32> {
  %r = tfc.fusion pointwise (%a = %x : tensor<4xf32>) -> tensor<4xf32> {
    %0 = tfc.fusion pointwise (%b = %a : tensor<4xf32>) -> tensor<4xf32> {
      %1 = tfc.exp %b : tensor<4xf32>
      tfc.yield %1 : tensor<4xf32>
    }
    tfc.yield %0 : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}
