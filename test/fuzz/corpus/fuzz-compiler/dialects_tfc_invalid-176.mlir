func.func @two_gathers(%t: tensor<256x128xf32>, %ids: tensor<16xi64>) -> tensor<16x128xf32> {
  %r = tfc.fusion gather (%a = %t : tensor<256x128xf32>, %i = %ids : tensor<16xi64>) -> tensor<16x128xf32> {
    %0 = tfc.embedding %a, %i : tensor<256x128xf32>, tensor<16xi64> -> tensor<16x128xf32>
    %1 = tfc.embedding %a, %i : tensor<256x128xf32>, tensor<16xi64> -> tensor<16x128xf32>
    %2 = tfc.add %0, %1 : tensor<16x128xf32>, tensor<16x128xf32>
    tfc.yield %2 : tensor<16x128xf32>
  }
  return %r : tensor<16x128xf32>
}
