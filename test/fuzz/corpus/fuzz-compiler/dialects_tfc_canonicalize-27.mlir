func.func @broadcast_dense_kept() -> tensor<2x2xf32> {
  %c = tfc.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %0 = tfc.broadcast_to %c : tensor<2xf32> -> tensor<2x2xf32>
  return %0 : tensor<2x2xf32>
}
