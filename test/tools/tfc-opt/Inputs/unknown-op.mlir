func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = tfc.frobnicate %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}
