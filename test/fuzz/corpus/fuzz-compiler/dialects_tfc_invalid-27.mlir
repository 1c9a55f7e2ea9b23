func.func @constant_dtype() {
  %0 = tfc.constant dense<1> : tensor<4xi8>
  return
}
