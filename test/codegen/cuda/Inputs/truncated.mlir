func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %r = tfc.fusion pointwise (%a = %x : tensor<4xf32>) -> tensor<4x
