func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = tfc.gelu %x approximate cubic : tensor<4xf32>
  return %0 : tensor<4xf32>
}
