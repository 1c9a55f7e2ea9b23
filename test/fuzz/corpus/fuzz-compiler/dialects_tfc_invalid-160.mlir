func.func @checkpoint_yield_type(%x: tensor<4xf32>) -> tensor<4xbf16> {
  %r = tfc.checkpoint (%a = %x : tensor<4xf32>) -> tensor<4xbf16> {
    %0 = tfc.exp %a : tensor<4xf32>
    tfc.yield %0 : tensor<4xf32>
  }
  return %r : tensor<4xbf16>
}
