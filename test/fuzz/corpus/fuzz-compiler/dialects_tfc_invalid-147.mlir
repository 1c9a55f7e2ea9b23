func.func @no_results(%x: tensor<4xf32>) {
  tfc.fusion pointwise (%a = %x : tensor<4xf32>) -> () {
    %0 = tfc.exp %a : tensor<4xf32>
    tfc.yield
  }
  return
}
