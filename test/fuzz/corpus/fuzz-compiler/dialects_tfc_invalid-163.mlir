func.func @checkpoint_no_results(%x: tensor<4xf32>) {
  tfc.checkpoint (%a = %x : tensor<4xf32>) -> () {
    tfc.yield
  }
  return
}
