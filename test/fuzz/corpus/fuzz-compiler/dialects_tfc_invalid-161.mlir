func.func @checkpoint_nested(%x: tensor<4xf32>) -> tensor<4xf32> {
  %r = tfc.checkpoint (%a = %x : tensor<4xf32>) -> tensor<4xf32> {
    %0 = tfc.checkpoint (%b = %a : tensor<4xf32>) -> tensor<4xf32> {
      %1 = tfc.exp %b : tensor<4xf32>
      tfc.yield %1 : tensor<4xf32>
    }
    tfc.yield %0 : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}
