func.func @k0() {
  return
}
func.func @loss(%x: tensor<16xf32>) -> tensor<16xf32> {
  return %x : tensor<16xf32>
}
func.func @eval(%x: tensor<16xf32> {tfc.input = "x"}) -> tensor<f32> {
  %0 = tfc.fusion pointwise (%in = %x : tensor<16xf32>) -> tensor<16xf32> {
    %r = tfc.abs %in : tensor<16xf32>
    tfc.yield %r : tensor<16xf32>
  }
  %1 = tfc.fusion row_reduction (%in = %0 : tensor<16xf32>) -> tensor<f32> {
    %r = tfc.reduce_sum %in dims [0] : tensor<16xf32> -> tensor<f32>
    tfc.yield %r : tensor<f32>
  }
  return %1 : tensor<f32>
}
