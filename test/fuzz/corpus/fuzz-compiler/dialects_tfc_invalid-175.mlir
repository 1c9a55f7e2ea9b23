func.func @gather_without_gather(%x: tensor<16x128xf32>) -> tensor<16x128xf32> {
  %r = tfc.fusion gather (%a = %x : tensor<16x128xf32>) -> tensor<16x128xf32> {
    %0 = tfc.relu %a : tensor<16x128xf32>
    tfc.yield %0 : tensor<16x128xf32>
  }
  return %r : tensor<16x128xf32>
}
