func.func @gelu_bad_approximation(%x: tensor<4xf32>) {
  %0 = tfc.gelu %x approximate erf : tensor<4xf32>
  return
}
