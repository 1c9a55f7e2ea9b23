func.func @yield_outside(%x: tensor<4xf32>) -> tensor<4xf32> {
  tfc.yield %x : tensor<4xf32>
}
