func.func private @helper(tensor<4xf32>) -> tensor<4xf32>
func.func @foreign_op(%x: tensor<4xf32>) -> tensor<4xf32> {
  %r = tfc.fusion pointwise (%a = %x : tensor<4xf32>) -> tensor<4xf32> {
    %0 = func.call @helper(%a) : (tensor<4xf32>) -> tensor<4xf32>
    tfc.yield %0 : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}
